# The validating proxy in a container, on Node's official image: `docker build -t las-proxy .`,
# then `docker run -e LAS_PROXY_UPSTREAM=https://staging.example.com/v3 -p 8080:8080 las-proxy`.
# Violations go to stdout, the operations log to stderr.
FROM node:22-bookworm-slim
WORKDIR /opt/las-conformance
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
ENV LAS_PROXY_HOST=0.0.0.0 LAS_PROXY_ADMIN_HOST=0.0.0.0 LAS_PROXY_PORT=8080 LAS_PROXY_ADMIN_PORT=8741
# Large freed buffers go back to the system (see "Memory" in docs/operating-the-proxy.md).
ENV MALLOC_MMAP_THRESHOLD_=131072
EXPOSE 8080 8741
USER node
STOPSIGNAL SIGTERM
CMD ["node", "bin/las-conformance.js", "proxy"]
