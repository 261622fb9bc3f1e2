// Starts Swagger UI on /api/docs/ (templates/api/docs.html), from a file: the CSP allows no inline script.
// As django-ninja's swagger-ui-init.js: its settings come from the page (an attribute, not an inline
// script), and "Try it out" sends the session's CSRF token, which POSTs with a session need (a Bearer
// token needs none).
const page = document.body.dataset;
const config = JSON.parse(page.swaggerSettings);

config.dom_id = "#swagger-ui";
config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset];
config.requestInterceptor = (request) => {
  request.headers["X-CSRFToken"] = page.csrfToken;
  return request;
};
SwaggerUIBundle(config);
