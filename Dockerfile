# One Parley node. docker-compose.yml runs two behind nginx.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.base.json biome.json ./
COPY shared/package.json shared/
COPY server/package.json server/
COPY client/package.json client/
COPY widget/package.json widget/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
EXPOSE 3000
CMD ["node", "server/dist/index.js"]
