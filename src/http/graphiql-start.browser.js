// Runs in the browser, after Yoga's GraphiQL bundle: starts GraphiQL as @graphql-yoga/render-graphiql's own page
// does, but with the editor's workers loaded from this service (no blob: URLs) and the options read from the
// page's JSON data block (no inline script, so the Content-Security-Policy needs no exception).
(function start() {
  const page = JSON.parse(document.getElementById('graphiql-page').textContent);
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: (_moduleId, label) => page.workers[label],
  };
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), page.options);
})();
