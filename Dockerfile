# One Parley node. docker-compose.yml runs two behind nginx.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.base.json biome.json ./
# npm ci needs every workspace's package.json to match the lock file.
COPY shared/package.json shared/
COPY server/package.json server/
COPY client/package.json client/
COPY widget/package.json widget/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
  && mkdir -p /data && chown node:node /data
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
# The embedded database and uploads live here; keep them on a volume.
VOLUME /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "server/dist/index.js"]
