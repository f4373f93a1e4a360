# One application host of docs/deploy.md as a container image, on Node 24, the
# newest Node CI tests (docs/architecture.md, "Supported Node.js versions"):
#   docker build -t eventide .
#   docker run -p 8000:8000 -e DATABASE_URL=postgres://eventide@db:5432/eventide eventide
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev && npm install --no-save --no-audit --no-fund pg

FROM node:24-bookworm-slim
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./
USER node
EXPOSE 8000
ENV DATABASE_URL=postgres://eventide@db:5432/eventide \
    ALLOWED_HOSTS=localhost,127.0.0.1
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=5s --timeout=2s CMD node -e "fetch('http://127.0.0.1:8000/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["sh", "-c", "exec node dist/cli/main.js serve --host 0.0.0.0 --port 8000 --workers 2 --database \"$DATABASE_URL\" --allowed-hosts \"$ALLOWED_HOSTS\""]
