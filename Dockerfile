# Social Lookup — production image. Several containers share PostgreSQL (DATABASE_URL) and
# Redis (REDIS_URL) and must share AUTH_SECRET. Migrations run when an instance first opens the
# database (serialised by an advisory lock); the first administrator comes from ADMIN_EMAIL and
# ADMIN_PASSWORD. Not buildable on the development machines (no Docker engine there):
# tests/unit/deployment.test.ts keeps this file honest.
#
# The process is server.ts (the front: /v1 answered by itself, the rest by Next through its
# custom-server API). Next's standalone output cannot carry a custom server, so the image holds
# the regular `next build` output, the production dependencies, and the sources server.ts runs
# from through tsx: server.ts, lib/ (with the SQL files read at runtime), next.config.ts,
# tsconfig.json (its path aliases).
FROM node:22-bookworm-slim AS deps
WORKDIR /app
# Next's anonymous usage telemetry stays off in every stage that runs Next (build and server).
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
RUN npm ci

FROM deps AS build
COPY . .
# The build cache is of no use at runtime.
RUN npx next build && rm -rf .next/cache

FROM node:22-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

FROM node:22-bookworm-slim AS run
WORKDIR /app
ENV NODE_ENV=production
ENV NEXT_TELEMETRY_DISABLED=1
ENV HOST=0.0.0.0
ENV PORT=3000
ENV DATA_DIR=/data
RUN groupadd --system app && useradd --system --gid app --home /app app && mkdir -p /data && chown app:app /data
COPY --from=prod-deps --chown=app:app /app/node_modules ./node_modules
COPY --from=build --chown=app:app /app/.next ./.next
COPY --from=build --chown=app:app /app/public ./public
COPY --chown=app:app package.json tsconfig.json next.config.ts server.ts ./
COPY --chown=app:app lib ./lib
USER app
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:3000/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "node_modules/tsx/dist/cli.mjs", "server.ts"]
