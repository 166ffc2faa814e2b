"use strict";
// The console's only way to the server: the public API with the organization key, kept in
// sessionStorage (this tab only) and sent as `Authorization: Key …`. No cookies.
(function () {
  const ORG = "openpush.console.org_key";
  const REST = "openpush.console.rest_keys";

  class ApiError extends Error {
    constructor(status, messages) {
      super(messages.join("; "));
      this.status = status;
      this.messages = messages;
    }
  }

  function orgKey() { return sessionStorage.getItem(ORG); }
  function restKeys() {
    try { return JSON.parse(sessionStorage.getItem(REST) || "{}"); } catch (e) { return {}; }
  }

  async function call(method, path, options) {
    const opts = options || {};
    const headers = { "Authorization": "Key " + (opts.key || orgKey() || "") };
    const init = { method: method, headers: headers, credentials: "omit", cache: "no-store" };
    if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(opts.body);
    }
    let url = path;
    if (opts.query) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(opts.query)) {
        if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
      }
      const text = params.toString();
      if (text) url += "?" + text;
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (e) {
      throw new ApiError(0, ["OpenPush cannot be reached (" + e.message + ")"]);
    }
    const text = await response.text();
    let body = null;
    if (text) { try { body = JSON.parse(text); } catch (e) { body = null; } }
    if (!response.ok) {
      let messages = [response.status + " " + response.statusText];
      if (body && Array.isArray(body.errors)) messages = body.errors.map(String);
      else if (body && typeof body.detail === "string") messages = [body.detail];
      throw new ApiError(response.status, messages);
    }
    if (body && typeof body === "object" && !Array.isArray(body) && Array.isArray(body.errors) && body.id === "") {
      throw new ApiError(response.status, body.errors.map(String));
    }
    return { body: body, headers: response.headers };
  }

  // Routes that take an app's REST key get one the console made for itself through the
  // organization-key keys route, kept for this tab and deleted again on sign-out. It expires
  // after 12 hours, so a tab closed without signing out leaves no key that works for long.
  const REST_KEY_SECONDS = 12 * 3600;
  async function restKey(appID) {
    const keys = restKeys();
    if (keys[appID]) return keys[appID].token;
    const made = await call("POST", "/apps/" + encodeURIComponent(appID) + "/auth/tokens",
      { body: { name: "console", expires_in_seconds: REST_KEY_SECONDS } });
    keys[appID] = { id: made.body.id, token: made.body.token };
    sessionStorage.setItem(REST, JSON.stringify(keys));
    return made.body.token;
  }

  async function asApp(appID, method, path, options) {
    const opts = Object.assign({}, options || {});
    opts.key = await restKey(appID);
    try {
      return await call(method, path, opts);
    } catch (e) {
      // The console's key expired or was deleted elsewhere: make another once, and delete
      // the expired one so keys do not pile up.
      if (e.status !== 401) throw e;
      const keys = restKeys();
      const old = keys[appID];
      if (old) {
        try { await call("DELETE", "/apps/" + encodeURIComponent(appID) + "/auth/tokens/" + encodeURIComponent(old.id)); } catch (gone) { /* gone already */ }
      }
      delete keys[appID];
      sessionStorage.setItem(REST, JSON.stringify(keys));
      opts.key = await restKey(appID);
      return call(method, path, opts);
    }
  }

  async function signIn(key) {
    sessionStorage.setItem(ORG, key);
    try {
      await call("GET", "/apps", { query: { limit: 1 } });
    } catch (e) {
      sessionStorage.removeItem(ORG);
      throw e;
    }
  }

  async function signOut() {
    const keys = restKeys();
    for (const [appID, key] of Object.entries(keys)) {
      try { await call("DELETE", "/apps/" + encodeURIComponent(appID) + "/auth/tokens/" + encodeURIComponent(key.id)); } catch (e) { /* gone already */ }
    }
    sessionStorage.removeItem(REST);
    sessionStorage.removeItem(ORG);
  }

  function forgetRestKey(appID) {
    const keys = restKeys();
    delete keys[appID];
    sessionStorage.setItem(REST, JSON.stringify(keys));
  }

  function consoleKeyIDs() {
    return Object.values(restKeys()).map(function (k) { return k.id; });
  }

  window.OpenPushAPI = { ApiError, call, asApp, restKey, signIn, signOut, orgKey, forgetRestKey, consoleKeyIDs };
})();
