// The OpenPush API reference: renders the served /openapi.json in the browser.
//
// Everything the page shows comes from that one document, so the reference can never drift
// from the routes (OpenAPIDocumentTests keeps the document and the router in step). No
// framework and no other origin: the page is served with a CSP that allows only 'self', so all
// DOM is built with createElement/textContent (never innerHTML with document text) and there
// is no inline script or style.
"use strict";

(function () {
  const METHODS = ["get", "post", "put", "patch", "delete"];

  // The route families of DESIGN.md, in the order the page lists them. `family` decides the
  // error body shape and, when the document does not say, which key a route takes.
  const FAMILIES = [
    { id: "operations", title: "Operations", note: "No key (GET /metrics takes a bearer token when one is configured)." },
    { id: "rest", title: "REST API", note: "Apps with the organization key; users, subscriptions, segments, notifications, templates, tenants and webhooks with the app's REST API key. Errors: {\"errors\": [\"…\"]}." },
    { id: "send", title: "Server send routes", note: "Live Activity start, update and end with the app's REST API key; 60 requests per 60 s per app. Errors: {\"errors\": [\"…\"]}." },
    { id: "native", title: "Native device routes", note: "Called by the mobile SDKs with the app's SDK key (X-OP-SDK-Key). Errors: {\"detail\": \"…\"}." },
  ];
  const OPERATIONS_PATHS = ["/health", "/ready", "/metrics", "/openapi.json", "/docs"];

  // The keys a reader can paste. Kept in this tab's sessionStorage only, and sent only as the
  // auth header of a request the reader sends from a "try it" panel.
  const KEYS = {
    org: { label: "Organization key", variable: "ORG_KEY", header: "Authorization", prefix: "Key " },
    rest: { label: "REST API key", variable: "REST_API_KEY", header: "Authorization", prefix: "Key " },
    sdk: { label: "SDK key", variable: "SDK_KEY", header: "X-OP-SDK-Key", prefix: "" },
    metrics: { label: "Metrics token", variable: "METRICS_TOKEN", header: "Authorization", prefix: "Bearer " },
  };
  const STORAGE_PREFIX = "openpush.docs.key.";

  const state = { document: null, operations: [], keys: {} };

  // ---- small DOM helpers ------------------------------------------------------------------

  /** el("p", {class: "x"}, "text", child…): an element with attributes and children. */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** Text with `code spans` as <code>, the one bit of markdown the document uses. */
  function prose(text) {
    const parts = String(text || "").split("`");
    return parts.map((part, index) => (index % 2 === 1 ? el("code", {}, part) : part));
  }

  function pretty(value) {
    return JSON.stringify(value, null, 2);
  }

  // ---- the document -----------------------------------------------------------------------

  /** Follows a local `$ref` ("#/components/schemas/X"); anything else is returned as is. */
  function deref(node) {
    let current = node;
    const seen = new Set();
    while (current && typeof current === "object" && typeof current.$ref === "string") {
      if (seen.has(current.$ref) || !current.$ref.startsWith("#/")) break;
      seen.add(current.$ref);
      let target = state.document;
      for (const raw of current.$ref.slice(2).split("/")) {
        const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
        target = target && target[key];
      }
      if (target === undefined) break;
      current = target;
    }
    return current;
  }

  function refName(node) {
    return node && typeof node.$ref === "string" ? node.$ref.split("/").pop() : null;
  }

  function familyOf(path) {
    if (path === "/v1" || path.startsWith("/v1/")) return "native";
    if (OPERATIONS_PATHS.includes(path) || path.startsWith("/docs/")) return "operations";
    if (/^\/apps\/[^/]+\/activities\/activity\//.test(path) || /^\/apps\/[^/]+\/live_activities\//.test(path)) return "send";
    return "rest";
  }

  // The document's security schemes, by name, as the keys a reader pastes.
  const SCHEME_KEYS = {
    organizationKey: "org", organizationKeyHeader: "org", restKey: "rest", restKeyHeader: "rest",
    sdkKey: "sdk", metricsToken: "metrics",
  };

  /**
   * Which key an operation takes: the first requirement of its `security` that names a key
   * the page knows. Every operation declares one (OpenAPIErrorExamplesTests); none means no key.
   */
  function authOf(operation) {
    for (const requirement of operation.security || []) {
      for (const name of Object.keys(requirement)) {
        if (SCHEME_KEYS[name]) return SCHEME_KEYS[name];
      }
    }
    return null;
  }

  /** Every operation, flattened, with what the page needs to render and search it. */
  function collectOperations(doc) {
    const operations = [];
    for (const [path, item] of Object.entries(doc.paths || {})) {
      const shared = (item.parameters || []).map(deref);
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const family = familyOf(path);
        const parameters = shared.concat((operation.parameters || []).map(deref));
        const tag = (operation.tags && operation.tags[0]) || family;
        // Ids are links (#op-post-notifications); two paths that slug alike get a suffix.
        let id = "op-" + method + "-" + path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "");
        while (operations.some((other) => other.id === id)) id += "-x";
        operations.push({
          method, path, operation, family, tag, parameters,
          auth: authOf(operation),
          id,
          haystack: [method, path, operation.summary, operation.description, operation.operationId, tag]
            .join(" ").toLowerCase(),
        });
      }
    }
    return operations;
  }

  // ---- examples ---------------------------------------------------------------------------

  function typeOf(schema) {
    const type = schema.type;
    if (Array.isArray(type)) return type.find((t) => t !== "null") || "null";
    if (type) return type;
    if (schema.properties) return "object";
    if (schema.items) return "array";
    return undefined;
  }

  /**
   * A plausible value for a schema: its own example, default, const or first enum value, or
   * one built from its type. Objects get their required properties (all of them when none is
   * required, up to a few), so a curl example is a body the route accepts as far as the
   * schema can tell.
   */
  function exampleFor(rawSchema, depth) {
    const schema = deref(rawSchema) || {};
    depth = depth || 0;
    if (depth > 6) return null;
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
    if (schema.default !== undefined) return schema.default;
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
    const choice = schema.oneOf || schema.anyOf;
    if (Array.isArray(choice) && choice.length) return exampleFor(choice[0], depth + 1);
    if (Array.isArray(schema.allOf)) {
      return schema.allOf.reduce((merged, part) => Object.assign(merged, exampleFor(part, depth + 1) || {}), {});
    }
    switch (typeOf(schema)) {
      case "object": {
        const properties = schema.properties || {};
        let names = (schema.required || []).filter((name) => properties[name]);
        if (!names.length) names = Object.keys(properties).slice(0, 3);
        const value = {};
        for (const name of names) value[name] = exampleFor(properties[name], depth + 1);
        return value;
      }
      case "array": return schema.items ? [exampleFor(schema.items, depth + 1)] : [];
      case "integer": return schema.minimum !== undefined ? schema.minimum : 1;
      case "number": return schema.minimum !== undefined ? schema.minimum : 1.5;
      case "boolean": return true;
      case "null": return null;
      case "string":
        if (schema.format === "date-time") return "2026-01-05T09:30:00Z";
        if (schema.format === "uuid") return "1f0c2a5e-8d3b-4c6f-9a7e-2b4d6f8a0c1e";
        if (schema.format === "uri" || schema.format === "url") return "https://example.com/hook";
        // Hex fields (device tokens) get 32 bytes of hex, which their patterns accept.
        if (schema.pattern && /0-9a-f/i.test(schema.pattern)) return "a1b2c3d4e5f60718".repeat(4);
        return schema.minLength > 6 ? "x".repeat(schema.minLength) : "string";
      default: return {};
    }
  }

  /** The example a media type gives itself (`example`, or the first of `examples`). */
  function mediaExample(media) {
    if (!media) return undefined;
    if (media.example !== undefined) return media.example;
    if (media.examples && typeof media.examples === "object") {
      const first = Object.values(media.examples)[0];
      if (first) return deref(first).value;
    }
    return undefined;
  }

  /**
   * The body of an error answer. Most errors in the document give a schema and describe the
   * message in prose, often quoting it in backticks, or spelling out the body ("e.g.
   * {"errors": […]}"); the example is built from that, in the family's shape.
   */
  function errorExample(response, family) {
    const media = (response.content || {})["application/json"];
    const own = mediaExample(media);
    if (own !== undefined) return { body: own, derived: false };
    const description = response.description || "";
    const shape = family === "native" ? "detail" : "errors";
    for (const match of description.match(/\{"(?:errors|detail)":[^{}]*\}/g) || []) {
      try {
        const parsed = JSON.parse(match);
        if (shape in parsed) return { body: parsed, derived: true };
      } catch (ignored) { /* prose that only looks like JSON */ }
    }
    const schema = deref(media && media.schema) || {};
    const properties = schema.properties || {};
    const message = quotedMessage(description);
    if (properties.detail && !properties.errors) return { body: { detail: message }, derived: true };
    if (properties.errors || shape === "errors") return { body: { errors: [message] }, derived: true };
    return { body: { detail: message }, derived: true };
  }

  /**
   * The message an error description quotes: the first backticked snippet that reads like a
   * sentence (a field name, a header or a JSON fragment does not), else the description's
   * first sentence. The NUL-character note most 400s carry is used only when nothing else is.
   */
  function quotedMessage(description) {
    const snippets = [...description.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    const readable = snippets.filter((text) => /\s/.test(text) && !/^[{[]/.test(text) && !/^[A-Za-z-]+: /.test(text));
    const preferred = readable.find((text) => !/must not contain NUL/.test(text));
    if (preferred) return preferred;
    const plain = description.replace(/`/g, "").split(/(?<=[.:;])\s/)[0].replace(/[.:;]$/, "").trim();
    return plain || readable[0] || "error";
  }

  function requestMedia(operation) {
    const body = deref(operation.requestBody);
    if (!body || !body.content) return null;
    const type = body.content["application/json"] ? "application/json" : Object.keys(body.content)[0];
    return { type, media: body.content[type], required: !!body.required, description: body.description };
  }

  function requestExample(operation) {
    const request = requestMedia(operation);
    if (!request) return undefined;
    const own = mediaExample(request.media);
    return own !== undefined ? own : exampleFor(request.media && request.media.schema);
  }

  // ---- curl -------------------------------------------------------------------------------

  /** Single-quotes a word for a POSIX shell. */
  function shellQuote(text) {
    return "'" + String(text).replace(/'/g, "'\\''") + "'";
  }

  /** `{app_id}` → `$APP_ID`, so the example reads like the README's. */
  function curlPath(path) {
    return path.replace(/\{([^}]+)\}/g, (_, name) => "$" + name.toUpperCase().replace(/[^A-Z0-9]/g, "_"));
  }

  function curlExample(entry) {
    const lines = [];
    const url = location.origin + curlPath(entry.path);
    const required = entry.parameters.filter((p) => p.in === "query" && p.required);
    const query = required.map((p) => p.name + "=" + encodeURIComponent(String(paramExample(p)))).join("&");
    const method = entry.method.toUpperCase();
    lines.push("curl" + (method === "GET" ? "" : " -X " + method) + ' "' + url + (query ? "?" + query : "") + '"');
    if (entry.auth) {
      const key = KEYS[entry.auth];
      lines.push('  -H "' + key.header + ": " + key.prefix + "$" + key.variable + '"');
    }
    for (const parameter of entry.parameters) {
      if (parameter.in !== "header" || !parameter.required) continue;
      if (entry.auth && parameter.name.toLowerCase() === KEYS[entry.auth].header.toLowerCase()) continue;
      lines.push("  -H " + shellQuote(parameter.name + ": " + paramExample(parameter)));
    }
    const body = requestExample(entry.operation);
    if (body !== undefined) {
      lines.push("  -H 'Content-Type: application/json'");
      lines.push("  -d " + shellQuote(JSON.stringify(body)));
    }
    return lines.join(" \\\n");
  }

  function paramExample(parameter) {
    if (parameter.example !== undefined) return parameter.example;
    const value = exampleFor(parameter.schema);
    return value === "string" ? "<" + parameter.name + ">" : value;
  }

  // ---- rendering --------------------------------------------------------------------------

  function render(doc) {
    state.document = doc;
    state.operations = collectOperations(doc);
    document.title = (doc.info && doc.info.title ? doc.info.title : "API") + " API reference";

    const app = document.getElementById("app");
    app.textContent = "";
    const toc = el("ul", { class: "toc" });
    const content = el("div", { class: "content" });

    append(content, [
      el("header", { class: "intro" },
        el("h1", {}, (doc.info && doc.info.title) || "API", " API reference"),
        el("p", { class: "version" }, "Version " + ((doc.info && doc.info.version) || "?") + " · generated from ",
          el("a", { href: "/openapi.json" }, "/openapi.json")),
        el("p", {}, prose(doc.info && doc.info.description))),
      renderKeys(),
      renderSearch(),
    ]);

    for (const family of FAMILIES) {
      const members = state.operations.filter((op) => op.family === family.id);
      if (!members.length) continue;
      const tags = [...new Set(members.map((op) => op.tag))];
      const section = el("section", { class: "family", id: "family-" + family.id, "data-family": family.id },
        el("h2", {}, family.title), el("p", { class: "note" }, family.note));
      const navGroup = el("li", { "data-family": family.id }, el("a", { href: "#family-" + family.id }, family.title));
      const navTags = el("ul", {});
      // A family whose only tag is its own name gets no second heading of the same word.
      const flat = tags.length === 1 && tags[0] === family.id;
      for (const tag of tags) {
        const tagID = "tag-" + family.id + "-" + tag.replace(/[^A-Za-z0-9]+/g, "-");
        const group = el("section", { class: "tag", id: tagID, "data-tag": tag }, flat ? null : el("h3", {}, tag));
        for (const entry of members.filter((op) => op.tag === tag)) group.appendChild(renderOperation(entry));
        section.appendChild(group);
        if (!flat) navTags.appendChild(el("li", { "data-tag-link": tagID }, el("a", { href: "#" + tagID }, tag)));
      }
      navGroup.appendChild(navTags);
      toc.appendChild(navGroup);
      content.appendChild(section);
    }
    content.appendChild(el("p", { class: "empty", id: "no-match", hidden: true }, "No operation matches."));
    append(app, [el("aside", { class: "sidebar" }, el("p", { class: "brand" }, "OpenPush"),
      el("nav", { "aria-label": "Route families" }, toc)), content]);

    openFromHash();
    window.addEventListener("hashchange", openFromHash);
    // When the reference was on screen, for the tests' measurement (ms since navigation start).
    document.body.setAttribute("data-rendered-ms", String(Math.round(performance.now())));
    document.body.setAttribute("data-ready", "true");
  }

  function renderOperation(entry) {
    const { method, path, operation } = entry;
    const details = el("details", {
      class: "op", id: entry.id, "data-method": method.toUpperCase(), "data-path": path,
      ontoggle: () => { if (details.open) fillOperation(details, entry); },
    },
    el("summary", {},
      el("span", { class: "method method-" + method }, method.toUpperCase()),
      el("code", { class: "path" }, path),
      el("span", { class: "summary" }, operation.summary || ""),
      entry.auth ? el("span", { class: "auth-badge auth-" + entry.auth }, KEYS[entry.auth].label) : null));
    return details;
  }

  /** Builds an operation's body the first time it is opened: the page starts with headers only. */
  function fillOperation(details, entry) {
    if (details.querySelector(".op-body")) return;
    const { operation } = entry;
    const body = el("div", { class: "op-body" });
    if (operation.description) body.appendChild(el("p", { class: "description" }, prose(operation.description)));
    body.appendChild(renderAuth(entry));
    if (entry.parameters.length) body.appendChild(renderParameters(entry.parameters));
    const request = requestMedia(operation);
    if (request) body.appendChild(renderRequest(request, operation));
    body.appendChild(renderResponses(entry));
    body.appendChild(renderCurl(entry));
    body.appendChild(renderTryIt(entry));
    details.appendChild(body);
  }

  function renderAuth(entry) {
    if (!entry.auth) return el("p", { class: "auth" }, el("strong", {}, "Auth: "), "none");
    const key = KEYS[entry.auth];
    const note = entry.auth === "metrics" ? " (only when OPENPUSH_METRICS_TOKEN is set)" : "";
    return el("p", { class: "auth" }, el("strong", {}, "Auth: "), key.label + note + " — ",
      el("code", {}, key.header + ": " + key.prefix + "<" + key.label.toLowerCase() + ">"));
  }

  function schemaType(rawSchema) {
    const schema = deref(rawSchema) || {};
    const name = refName(rawSchema);
    const choices = schema.oneOf || schema.anyOf;
    let type = Array.isArray(schema.type) ? schema.type.join(" | ")
      : typeOf(schema) || (Array.isArray(choices) ? choices.map(schemaType).join(" | ") : "any");
    if (type === "array" && schema.items) type = schemaType(schema.items) + "[]";
    if (Array.isArray(schema.enum)) type += " (" + schema.enum.map((v) => JSON.stringify(v)).join(", ") + ")";
    if (schema.format) type += " · " + schema.format;
    return name ? name + " · " + type : type;
  }

  function renderParameters(parameters) {
    const rows = parameters.map((parameter) => el("tr", {},
      el("td", {}, el("code", {}, parameter.name), parameter.required ? el("span", { class: "required" }, " required") : null),
      el("td", {}, parameter.in),
      el("td", {}, schemaType(parameter.schema)),
      el("td", {}, prose(parameter.description || ""))));
    return el("div", { class: "block" }, el("h4", {}, "Parameters"),
      el("div", { class: "table-wrap" }, el("table", {},
        el("thead", {}, el("tr", {}, el("th", {}, "name"), el("th", {}, "in"), el("th", {}, "type"), el("th", {}, "description"))),
        el("tbody", {}, rows))));
  }

  /** A schema as a nested list of its properties: name, type, required, description. */
  function renderSchema(rawSchema, depth, seen) {
    const schema = deref(rawSchema) || {};
    depth = depth || 0;
    seen = seen || new Set();
    const name = refName(rawSchema);
    // The top level's type is already in its toggle's title.
    const wrapper = el("div", { class: "schema" }, depth > 0 ? el("p", { class: "schema-type" }, schemaType(rawSchema)) : null);
    if (schema.description && depth === 0) wrapper.appendChild(el("p", { class: "schema-description" }, prose(schema.description)));
    if (name && seen.has(name)) return wrapper;
    if (name) seen = new Set([...seen, name]);
    const target = typeOf(schema) === "array" ? deref(schema.items) || {} : schema;
    const choices = target.oneOf || target.anyOf;
    const structured = Array.isArray(choices) && choices.some((choice) => (deref(choice) || {}).properties);
    if (structured && depth < 4) {
      const list = el("ul", { class: "choices" });
      choices.forEach((choice, index) => list.appendChild(el("li", {}, el("em", {}, index === 0 ? "one of: " : "or: "),
        renderSchema(choice, depth + 1, seen))));
      wrapper.appendChild(list);
    }
    const properties = target.properties || {};
    const required = new Set(target.required || []);
    if (Object.keys(properties).length && depth < 4) {
      const list = el("ul", { class: "properties" });
      for (const [property, value] of Object.entries(properties)) {
        const resolved = deref(value) || {};
        const item = el("li", {}, el("code", {}, property), " ",
          el("span", { class: "type" }, schemaType(value)),
          required.has(property) ? el("span", { class: "required" }, " required") : null,
          resolved.description ? el("span", { class: "property-description" }, " — ", prose(resolved.description)) : null);
        const nested = typeOf(resolved) === "array" ? deref(resolved.items) || {} : resolved;
        if ((nested.properties || nested.oneOf) && depth < 3) item.appendChild(renderSchema(value, depth + 1, seen));
        list.appendChild(item);
      }
      wrapper.appendChild(list);
    }
    return wrapper;
  }

  /** Schemas can be long; responses show theirs on demand so the examples stay in view. */
  function collapsible(title, content, open) {
    return el("details", { class: "schema-toggle", open: !!open }, el("summary", {}, title), content);
  }

  function renderRequest(request, operation) {
    const example = requestExample(operation);
    return el("div", { class: "block request" },
      el("h4", {}, "Request body ", el("span", { class: "media" }, request.type + (request.required ? "" : " (optional)"))),
      request.description ? el("p", {}, prose(request.description)) : null,
      collapsible("Schema: " + schemaType(request.media && request.media.schema), renderSchema(request.media && request.media.schema), true),
      example !== undefined ? el("p", { class: "label" }, "Example") : null,
      example !== undefined ? el("pre", { class: "example" }, pretty(example)) : null);
  }

  function renderResponses(entry) {
    const block = el("div", { class: "block responses" }, el("h4", {}, "Responses"));
    const statuses = Object.keys(entry.operation.responses || {}).sort();
    for (const status of statuses) {
      const response = deref(entry.operation.responses[status]) || {};
      const isError = /^[45]/.test(status);
      const content = response.content || {};
      const media = content["application/json"] || Object.values(content)[0];
      const item = el("div", { class: "response" + (isError ? " error" : ""), "data-status": status },
        el("p", { class: "response-head" }, el("span", { class: "status status-" + status[0] }, status), " ",
          prose(response.description || "")));
      if (response.headers && Object.keys(response.headers).length) {
        item.appendChild(el("p", { class: "headers" }, "Headers: ",
          Object.keys(response.headers).map((name, index) => [index ? ", " : "", el("code", {}, name)])));
      }
      if (media && media.schema) item.appendChild(collapsible("Schema: " + schemaType(media.schema), renderSchema(media.schema)));
      let example;
      if (isError) {
        const built = errorExample(response, entry.family);
        example = built.body;
        item.appendChild(el("p", { class: "label" }, built.derived ? "Example body (from the description)" : "Example body"));
      } else {
        example = mediaExample(media);
        if (example !== undefined) item.appendChild(el("p", { class: "label" }, "Example body"));
      }
      if (example !== undefined) {
        item.appendChild(el("pre", { class: "example" }, typeof example === "string" ? example : pretty(example)));
      }
      block.appendChild(item);
    }
    return block;
  }

  function renderCurl(entry) {
    const text = curlExample(entry);
    const pre = el("pre", { class: "curl" }, text);
    const button = el("button", { type: "button", class: "copy", onclick: () => copy(text, button) }, "Copy");
    return el("div", { class: "block" }, el("h4", {}, "curl ", button), pre);
  }

  /** Clipboard API where the page is a secure context (localhost is), else a hidden textarea. */
  function copy(text, button) {
    const done = () => { button.textContent = "Copied"; setTimeout(() => { button.textContent = "Copy"; }, 1500); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
    } else {
      fallbackCopy(text, done);
    }
  }

  function fallbackCopy(text, done) {
    const area = el("textarea", { class: "offscreen", readonly: true });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); done(); } catch (ignored) { /* the text stays selectable */ }
    area.remove();
  }

  // ---- keys and search --------------------------------------------------------------------

  function renderKeys() {
    const fields = Object.entries(KEYS).map(([kind, key]) => {
      const stored = sessionStorage.getItem(STORAGE_PREFIX + kind) || "";
      state.keys[kind] = stored;
      const input = el("input", {
        type: "password", id: "key-" + kind, autocomplete: "off", spellcheck: "false", value: stored,
        placeholder: "paste to use in “try it”",
        oninput: () => {
          state.keys[kind] = input.value.trim();
          if (state.keys[kind]) sessionStorage.setItem(STORAGE_PREFIX + kind, state.keys[kind]);
          else sessionStorage.removeItem(STORAGE_PREFIX + kind);
        },
      });
      return el("label", { class: "key" }, el("span", {}, key.label), input);
    });
    const forget = el("button", {
      type: "button", id: "forget-keys", onclick: () => {
        for (const kind of Object.keys(KEYS)) {
          sessionStorage.removeItem(STORAGE_PREFIX + kind);
          state.keys[kind] = "";
          document.getElementById("key-" + kind).value = "";
        }
      },
    }, "Forget keys");
    // A form only so the browser treats the key fields as one group; it is never submitted.
    const form = el("form", { class: "key-form", onsubmit: (event) => event.preventDefault() },
      el("div", { class: "key-grid" }, fields), forget);
    return el("details", { class: "keys", id: "keys" },
      el("summary", {}, "Keys for “try it”"),
      el("p", { class: "note" }, "Kept in this tab only (sessionStorage), and sent only as the auth header of a request you send below, to this server."),
      form);
  }

  function renderSearch() {
    const input = el("input", {
      type: "search", id: "search", placeholder: "Search: a word, a path, or POST /notifications",
      "aria-label": "Search operations", autocomplete: "off", oninput: () => filter(input.value),
    });
    return el("div", { class: "search" }, input, el("span", { id: "match-count", class: "match-count" },
      state.operations.length + " operations"));
  }

  /**
   * Instant filter. A method word ("post") matches the method, a word starting with "/"
   * matches inside the path, and any other word must appear in the method, path, summary,
   * description or tag; every word must match.
   */
  function filter(query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const matches = (entry, word) => {
      if (METHODS.includes(word)) return entry.method === word;
      if (word.startsWith("/")) return entry.path.toLowerCase().includes(word);
      return entry.haystack.includes(word);
    };
    let shown = 0;
    for (const entry of state.operations) {
      const match = words.every((word) => matches(entry, word));
      document.getElementById(entry.id).hidden = !match;
      if (match) shown += 1;
    }
    for (const group of document.querySelectorAll("section.tag, section.family")) {
      group.hidden = !group.querySelector("details.op:not([hidden])");
    }
    for (const item of document.querySelectorAll(".toc > li[data-family]")) {
      item.hidden = document.getElementById("family-" + item.getAttribute("data-family")).hidden;
    }
    for (const link of document.querySelectorAll("[data-tag-link]")) {
      const target = document.getElementById(link.getAttribute("data-tag-link"));
      link.hidden = !target || target.hidden;
    }
    document.getElementById("no-match").hidden = shown > 0;
    document.getElementById("match-count").textContent = words.length
      ? shown + " of " + state.operations.length + " operations"
      : state.operations.length + " operations";
  }

  /** `#op-get-apps` opens that operation, so a link to one lands on its details. */
  function openFromHash() {
    const target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") {
      target.open = true;
      target.scrollIntoView();
    }
  }

  // ---- try it -----------------------------------------------------------------------------

  function renderTryIt(entry) {
    const inputs = entry.parameters.map((parameter) => {
      const isKeyHeader = entry.auth && parameter.in === "header"
        && parameter.name.toLowerCase() === KEYS[entry.auth].header.toLowerCase();
      const input = el("input", {
        type: "text", "data-name": parameter.name, "data-in": parameter.in, spellcheck: "false",
        placeholder: isKeyHeader ? "the " + KEYS[entry.auth].label + " above" : String(paramExample(parameter)),
        "data-key-header": isKeyHeader ? "true" : null,
      });
      return el("label", { class: "field" }, el("span", {}, parameter.name + " (" + parameter.in + ")"
        + (parameter.required ? " *" : "")), input);
    });
    const example = requestExample(entry.operation);
    const bodyField = example !== undefined
      ? el("label", { class: "field wide" }, el("span", {}, "body (JSON)"),
        el("textarea", { class: "body", rows: Math.min(14, pretty(example).split("\n").length + 1), spellcheck: "false" }))
      : null;
    if (bodyField) bodyField.querySelector("textarea").value = pretty(example);
    const result = el("div", { class: "result", "aria-live": "polite" });
    const send = el("button", { type: "button", class: "send", onclick: () => sendRequest(entry, panel, result) }, "Send");
    const panel = el("div", { class: "block try" },
      el("h4", {}, "Try it"),
      entry.auth ? el("p", { class: "note" }, "Sends ", el("code", {}, KEYS[entry.auth].header), " with the ",
        KEYS[entry.auth].label + " from “Keys” at the top.") : null,
      el("div", { class: "fields" }, inputs, bodyField),
      send, result);
    return panel;
  }

  /** Builds the request from the panel, sends it to this origin and shows the whole answer. */
  async function sendRequest(entry, panel, result) {
    result.textContent = "";
    const headers = {};
    const query = new URLSearchParams();
    let path = entry.path;
    const missing = [];
    for (const input of panel.querySelectorAll("input[data-name]")) {
      const name = input.getAttribute("data-name");
      let value = input.value;
      if (!value && input.getAttribute("data-key-header")) value = state.keys[entry.auth] || "";
      const parameter = entry.parameters.find((p) => p.name === name && p.in === input.getAttribute("data-in"));
      if (!value) {
        if (parameter && parameter.required && parameter.in !== "header") missing.push(name);
        continue;
      }
      if (parameter.in === "path") path = path.replace("{" + name + "}", encodeURIComponent(value));
      else if (parameter.in === "query") query.append(name, value);
      else if (parameter.in === "header") headers[name] = value;
    }
    if (missing.length) {
      result.appendChild(el("p", { class: "problem" }, "Fill in " + missing.join(", ") + " first."));
      return;
    }
    if (entry.auth && state.keys[entry.auth] && !(KEYS[entry.auth].header in headers)) {
      headers[KEYS[entry.auth].header] = KEYS[entry.auth].prefix + state.keys[entry.auth];
    }
    const init = { method: entry.method.toUpperCase(), headers, credentials: "omit", cache: "no-store" };
    const area = panel.querySelector("textarea.body");
    if (area && area.value.trim()) {
      headers["Content-Type"] = "application/json";
      init.body = area.value;
    }
    const url = path + (query.toString() ? "?" + query.toString() : "");
    result.appendChild(el("p", { class: "sending" }, init.method + " " + url + " …"));
    const started = performance.now();
    try {
      const response = await fetch(url, init);
      const text = await response.text();
      showResponse(result, init.method, url, response, text, performance.now() - started);
    } catch (error) {
      result.textContent = "";
      result.appendChild(el("p", { class: "problem" }, "The request failed: " + error.message));
    }
  }

  function showResponse(result, method, url, response, text, elapsed) {
    result.textContent = "";
    let body = text;
    try { body = pretty(JSON.parse(text)); } catch (ignored) { /* not JSON: shown as sent */ }
    const headerLines = [];
    response.headers.forEach((value, name) => headerLines.push(name + ": " + value));
    append(result, [
      el("p", { class: "response-status" },
        el("span", { class: "status status-" + String(response.status)[0], "data-status": response.status },
          response.status + " " + response.statusText),
        " " + method + " " + url + " · " + Math.round(elapsed) + " ms"),
      el("p", { class: "label" }, "Headers"),
      el("pre", { class: "response-headers" }, headerLines.join("\n")),
      el("p", { class: "label" }, "Body"),
      el("pre", { class: "response-body" }, body || "(empty)"),
    ]);
  }

  // ---- start ------------------------------------------------------------------------------

  async function start() {
    const app = document.getElementById("app");
    try {
      const response = await fetch("/openapi.json", { cache: "no-cache", credentials: "omit" });
      if (!response.ok) throw new Error("/openapi.json answered " + response.status);
      render(await response.json());
    } catch (error) {
      app.textContent = "";
      app.appendChild(el("p", { class: "problem" }, "Cannot load the API document: " + error.message));
    }
  }

  start();
})();
