# syntax=docker/dockerfile:1
# The treasury console as an image: Next.js's standalone server, run as a non-root user
# with the heap limit `npm start` uses; only DATA_DIR is writable. See docs/production.md
# (Running the image). CI does not build this image (base images cannot be pulled there):
# it runs the standalone server exactly as the last stage does (scripts/standalone-server.mjs
# reads the CMD below) and passes the e2e smoke against it (e2e/standalone.spec.ts).

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# next build checks the configuration it is given; the mode is left for start-up.
RUN npm run build

FROM node:20-bookworm-slim AS run
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
# The app folder belongs to root and is read-only to the server's user; /data is its own.
RUN groupadd --system --gid 10001 console \
 && useradd --system --uid 10001 --gid console --no-create-home --shell /usr/sbin/nologin console \
 && mkdir -p /data && chown console:console /data && chmod 0700 /data
COPY --from=build --chown=root:root /app/.next/standalone ./
COPY --from=build --chown=root:root /app/.next/static ./.next/static
COPY --from=build --chown=root:root /app/public ./public
USER console
VOLUME ["/data"]
EXPOSE 3000
# SIGTERM starts the graceful shutdown: new writes refused, the quotes lease given up,
# placements in flight finished within SHUTDOWN_TIMEOUT_MS (10 s), then exit 0.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-old-space-size=256", "server.js"]
