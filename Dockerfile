# mdae -- build and run the analysis server in a Debian container.
#   docker build -t mdae .
#   docker run --rm -p 7420:7420 -v $PWD/my.json:/etc/mdae/conf/mdaed.json mdae
#                                                # mdaed (see the note on tokens below)
#   docker run --rm -v $PWD:/m mdae mdae analyze /m/model.mel --json
FROM debian:bookworm-slim AS build
WORKDIR /src
# The package list lives in scripts/deps.sh only; the tests are not built here,
# so neither Criterion nor Python is installed.
COPY scripts/deps.sh scripts/deps.sh
RUN WITH_TESTS=0 WITH_WEB=1 bash scripts/deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -DMDAE_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
    && cmake --build build -j && bash scripts/web.sh build/web

FROM debian:bookworm-slim
COPY scripts/deps.sh /tmp/deps.sh
RUN WITH_RUNTIME=1 bash /tmp/deps.sh && rm -rf /var/lib/apt/lists/* /tmp/deps.sh
COPY --from=build /src/build/clients/mdae /src/build/server/mdaed /usr/local/bin/
# The configuration finds the web page relative to itself (../build/web).
COPY --from=build /src/conf/mdaed.json /etc/mdae/conf/mdaed.json
COPY --from=build /src/build/web /etc/mdae/build/web
EXPOSE 7420
# Inside the container mdaed listens on loopback, as the default configuration
# says. To serve the published port, mount a configuration that listens on
# 0.0.0.0:7420 and sets an access "token" (mdaed refuses a non-loopback
# address without one): docker run -v $PWD/my.json:/etc/mdae/conf/mdaed.json ...
CMD ["mdaed", "--config", "/etc/mdae/conf/mdaed.json"]
