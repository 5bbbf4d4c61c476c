# Container image of Cairn (untested: no base image can be pulled where Cairn
# is developed). Build: docker build --build-arg COMMIT=$(git rev-parse HEAD) -t cairn .
# Run:   docker run -p 3000:3000 -p 2222:2222 -v cairn-data:/data cairn

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context may lack .git: the commit is passed in instead.
ARG COMMIT=
ARG COMMIT_DATE=
RUN CGO_ENABLED=0 go build -buildvcs=false -trimpath \
      -ldflags "-s -w -X main.commit=${COMMIT} -X main.commitDate=${COMMIT_DATE}" \
      -o /out/cairn ./cmd/cairn

FROM debian:stable-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 1000 cairn \
 && useradd --system --uid 1000 --gid cairn --home-dir /data --shell /usr/sbin/nologin cairn \
 && install -d -o cairn -g cairn -m 0750 /data
COPY --from=build /out/cairn /usr/bin/cairn
USER cairn
WORKDIR /data
VOLUME /data
ENV CAIRN_DATA_DIR=/data \
    CAIRN_HTTP_ADDR=0.0.0.0:3000 \
    CAIRN_SSH_ADDR=0.0.0.0:2222 \
    HOME=/data
EXPOSE 3000 2222
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s \
  CMD curl -fsS http://127.0.0.1:3000/api/healthz >/dev/null || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/cairn"]
CMD ["serve"]
