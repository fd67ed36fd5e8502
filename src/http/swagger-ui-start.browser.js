// Runs in the browser, after the Swagger UI bundle: renders the OpenAPI document the page names in its JSON data
// block (no inline script, so the Content-Security-Policy needs no exception).
(function start() {
  const page = JSON.parse(document.getElementById('swagger-ui-page').textContent);
  window.ui = SwaggerUIBundle({
    url: page.specUrl,
    dom_id: '#swagger-ui',
    persistAuthorization: true,
    // Swagger UI would otherwise send the document to validator.swagger.io for its badge.
    validatorUrl: null,
  });
})();
