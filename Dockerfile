# One image per service, built from the repository root (docker-compose.yml passes the build args):
#   docker build --build-arg SERVICE=notifications --build-arg PORT_VARIABLE=NOTIFICATIONS_PORT \
#     --build-arg DEFAULT_PORT=9095 -t homeops-notifications .
# The build stage compiles the service with its workspace packages and builds its dashboard (Vite); the
# runtime stage holds only the compiled code, the dashboard's static files and the production dependencies,
# owned by root so the service cannot rewrite itself.
# Node.js 24 LTS: security fixes until April 2028 (22's end in April 2027). The docker suite builds and tests the
# image on this same major (test/docker/stand-in-base-image.sh reads it from here); bare use needs 20.19 or later.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
ARG SERVICE
RUN test -n "$SERVICE" && npm install -g --no-fund --no-audit --loglevel=error pnpm@10.34.9
WORKDIR /repo
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml tsconfig.base.json tsconfig.web.json .npmrc ./
COPY packages/common/package.json packages/common/
COPY packages/test-kit/package.json packages/test-kit/
COPY packages/web-kit/package.json packages/web-kit/
COPY services/${SERVICE}/package.json services/${SERVICE}/
RUN pnpm install --frozen-lockfile --filter "@homeops/${SERVICE}..."
COPY packages/common packages/common
COPY packages/web-kit packages/web-kit
COPY services/${SERVICE} services/${SERVICE}
RUN pnpm --filter "@homeops/${SERVICE}..." run build \
 && pnpm --filter "@homeops/${SERVICE}" deploy --prod --legacy /out \
 && rm -rf /out/src /out/test /out/bench /out/*.tsbuildinfo /out/dist/*.tsbuildinfo

FROM ${NODE_IMAGE}
ARG PORT_VARIABLE
ARG DEFAULT_PORT
ENV NODE_ENV=production HOMEOPS_PORT_VARIABLE=${PORT_VARIABLE} HOMEOPS_DEFAULT_PORT=${DEFAULT_PORT}
WORKDIR /app
COPY --from=build /out ./
COPY docker/entrypoint.sh docker/healthcheck.cjs /usr/local/lib/homeops/
RUN install -d -o node -g node /app/data
VOLUME /app/data
EXPOSE ${DEFAULT_PORT}
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "/usr/local/lib/homeops/healthcheck.cjs"]
ENTRYPOINT ["/usr/local/lib/homeops/entrypoint.sh"]
CMD ["node", "dist/main.js"]
