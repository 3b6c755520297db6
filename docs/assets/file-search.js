// Opened from disk (file://), the browser lets no page read the site's search index, so the
// search box says how to serve the site instead of searching nothing (the home page says it too).
(function () {
  if (location.protocol !== "file:") return;
  function hint() {
    for (const input of document.querySelectorAll(".md-search__input")) {
      input.placeholder = "Search: serve the site first";
      input.title =
        "Opened from disk, search cannot read its index. Serve the site: " +
        "python -m http.server -d site 8000, then open http://localhost:8000/";
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", hint);
  else hint();
})();
