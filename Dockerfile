# mdae -- build and run the analysis server in a Debian container.
#   docker build -t mdae .
#   docker run --rm -p 7420:7420 -v $PWD/my.json:/etc/mdae/conf/mdaed.json mdae
#                                                # mdaed (see the note on tokens below)
#   docker run --rm -v $PWD:/m mdae mdae analyze /m/model.mel --json
FROM debian:bookworm-slim AS build
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        cmake make gcc pkg-config libbdd-dev libuv1-dev libcjson-dev \
        libcriterion-dev libhttp-parser-dev python3 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B build -DMDAE_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
    && cmake --build build -j

FROM debian:bookworm-slim
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        libbdd0c2 libuv1 libcjson1 libhttp-parser2.9 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/clients/mdae /src/build/server/mdaed /usr/local/bin/
# The configuration finds the web page relative to itself (../clients/web).
COPY --from=build /src/conf/mdaed.json /etc/mdae/conf/mdaed.json
COPY --from=build /src/clients/web /etc/mdae/clients/web
EXPOSE 7420
# Inside the container mdaed listens on loopback, as the default configuration
# says. To serve the published port, mount a configuration that listens on
# 0.0.0.0:7420 and sets an access "token" (mdaed refuses a non-loopback
# address without one): docker run -v $PWD/my.json:/etc/mdae/conf/mdaed.json ...
CMD ["mdaed", "--config", "/etc/mdae/conf/mdaed.json"]
