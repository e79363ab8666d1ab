# mdae -- build and run the analysis server in a Debian container.
#   docker build -t mdae .
#   docker run --rm -p 7420:7420 mdae            # mdaed on port 7420
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
COPY --from=build /src/conf /etc/mdae
COPY --from=build /src/clients/web /usr/share/mdae/web
EXPOSE 7420
# Listening on a non-loopback address needs an access token in the
# configuration (see README.md, "Configuration").
CMD ["mdaed", "--config", "/etc/mdae/mdaed.json"]
