/*
 * OpenPush page snippet for Web Push.
 *
 *     <script src="https://push.example.com/sdk/web/openpush.js"></script>
 *     <script>
 *       OpenPush.init({ appId: "app_…", sdkKey: "sdk_…", serverURL: "https://push.example.com" })
 *         .then(function (subscription) { console.log("subscribed", subscription.id); });
 *     </script>
 *
 * It registers the service worker (default "/openpush-sw.js" on your site, which imports
 * /sdk/web/openpush-sw.js), asks for permission, subscribes with the app's VAPID key
 * (GET /v1/apps/{app_id}/web-push) and registers the subscription with OpenPush
 * (POST /v1/apps/{app_id}/subscriptions, platform "web"). Call it from a user gesture (a click):
 * browsers refuse a permission prompt without one.
 */
(function (global) {
  "use strict";

  var CONFIG_CACHE = "openpush-config";
  var CONFIG_KEY = "/openpush-config.json";

  // base64url (the VAPID public key) to the bytes pushManager.subscribe wants.
  function decodeKey(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) { base64 += "="; }
    var raw = global.atob(base64);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    return bytes;
  }

  function request(options, method, path, body) {
    var init = { method: method, headers: { "X-OP-SDK-Key": options.sdkKey } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return global.fetch(options.serverURL.replace(/\/+$/, "") + path, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (json) {
        if (!response.ok) { throw new Error("OpenPush " + response.status + ": " + (json.detail || "request failed")); }
        return json;
      });
    });
  }

  // The service worker reports taps with these (it cannot see the page's variables).
  function remember(options, endpoint) {
    if (!global.caches) { return Promise.resolve(); }
    var config = { serverURL: options.serverURL, appId: options.appId, sdkKey: options.sdkKey, endpoint: endpoint };
    return global.caches.open(CONFIG_CACHE).then(function (cache) {
      return cache.put(CONFIG_KEY, new Response(JSON.stringify(config), { headers: { "Content-Type": "application/json" } }));
    }).catch(function () {});
  }

  function init(options) {
    options = options || {};
    if (!options.appId || !options.sdkKey || !options.serverURL) {
      return Promise.reject(new Error("OpenPush.init needs appId, sdkKey and serverURL"));
    }
    if (!("serviceWorker" in global.navigator) || !("PushManager" in global)) {
      return Promise.reject(new Error("this browser does not support Web Push"));
    }
    var appPath = "/v1/apps/" + encodeURIComponent(options.appId);
    var registration;
    return global.navigator.serviceWorker.register(options.serviceWorkerPath || "/openpush-sw.js")
      .then(function (registered) {
        registration = registered;
        return global.Notification.requestPermission();
      })
      .then(function (permission) {
        if (permission !== "granted") { throw new Error("notification permission was " + permission); }
        return request(options, "GET", appPath + "/web-push");
      })
      .then(function (key) {
        return registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: decodeKey(key.vapid_public_key)
        });
      })
      .then(function (subscription) {
        var json = subscription.toJSON();
        var body = { platform: "web", token: json.endpoint, web_p256: json.keys.p256dh, web_auth: json.keys.auth };
        ["external_id", "language", "timezone", "tags"].forEach(function (name) {
          if (options[name] !== undefined) { body[name] = options[name]; }
        });
        if (body.timezone === undefined && global.Intl) {
          body.timezone = global.Intl.DateTimeFormat().resolvedOptions().timeZone;
        }
        if (body.language === undefined && global.navigator.language) {
          body.language = global.navigator.language.split("-")[0];
        }
        return request(options, "POST", appPath + "/subscriptions", body).then(function (registered) {
          return remember(options, json.endpoint).then(function () {
            return { id: registered.id, created: registered.created, endpoint: json.endpoint };
          });
        });
      });
  }

  global.OpenPush = { init: init, version: 1 };
})(typeof window !== "undefined" ? window : self);
