# The gateway as a container image. Its start command is the project's one start command, `npm start`
# (`exec node src/main.ts` on the Node 24 that `npm ci` installs from the `node` package), the command
# `npm run test:scale` and the process tests run; test/container.test.ts checks that they agree, and that
# everything src/ imports is a production dependency. No Docker engine runs on the development machines, so
# the image itself is not built there (docs/deploying.md says what is and is not verified).
FROM node:24-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000

# Dependencies first: the layer is reused while package-lock.json does not change.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Node runs the TypeScript sources directly (type stripping): no build step.
COPY src ./src
COPY migrations ./migrations

USER node
EXPOSE 4000
# `npm start` execs Node, so the SIGTERM of `docker stop` reaches the service, which drains and exits 0.
STOPSIGNAL SIGTERM
CMD ["npm", "start"]
