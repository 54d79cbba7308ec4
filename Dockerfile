# stockd as a container: `docker build -t stockd .` then
#   docker run -v stockd-data:/data -p 8080:8080 stockd
# The first start on an empty volume builds the demo data and prints a demo API key (docker logs).

# Build stage: the same `bun scripts/build.ts` that `npm run build` and test/binary.test.ts run.
FROM oven/bun:1.4 AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Runtime dependencies only; the build needs no dev tools but Bun itself (the image's).
RUN bun install --frozen-lockfile --production
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
# The build context has no .git: pass the commit in as a build argument, e.g.
#   docker build --build-arg STOCKD_COMMIT=$(git rev-parse --short=12 HEAD) -t stockd .
# (build arguments reach RUN as environment variables; scripts/build.ts reads both).
ARG STOCKD_COMMIT
ARG SOURCE_DATE_EPOCH
RUN bun scripts/build.ts --outfile /out/stockd

# Runtime stage: glibc and libstdc++ (which libduckdb needs) and the binary, nothing else.
FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 stockd \
 && useradd --system --uid 10001 --gid stockd --create-home --home-dir /home/stockd stockd \
 && mkdir /data /published && chown stockd:stockd /data /published
COPY --from=build /out/stockd /usr/local/bin/stockd
USER stockd
# /published: where deploy/compose.yaml mounts the snapshot source its replicas follow
# (a named volume takes this directory's owner).
# libduckdb.so is unpacked once into ~/.cache/stockd/<version>/ on the first start.
ENV STOCKD_DATA_DIR=/data HOST=0.0.0.0
VOLUME /data
EXPOSE 8080
# The image has no curl: the binary checks its own /health (http://127.0.0.1:$PORT/health).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["stockd", "healthcheck"]
# SIGTERM (docker stop) drains calls in flight for up to 8 s, within docker's 10 s grace.
ENTRYPOINT ["stockd"]
CMD ["serve"]
