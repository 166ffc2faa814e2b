/*
 * OpenPush service worker for Web Push. Serve it from your own site (service workers must be
 * same-origin with the page), either as a copy or as a one-line worker of your own:
 *
 *     importScripts("https://push.example.com/sdk/web/openpush-sw.js");
 *
 * A push carries JSON: {title, body, icon, image, badge, url, tag, data,
 * openpush: {notification_id, subscription_id}}. A tap opens `url` and is reported to OpenPush
 * through POST /v1/apps/{app_id}/notifications/{notification_id}/opened.
 */
(function () {
  "use strict";

  // Shown when a push has no text (a privacy push without privacy_text): never a blank notification.
  var FALLBACK_TITLE = "New notification";
  var FALLBACK_BODY = "You have a new notification.";
  var CONFIG_CACHE = "openpush-config";
  var CONFIG_KEY = "/openpush-config.json";

  function parse(event) {
    if (!event.data) { return {}; }
    try {
      var value = event.data.json();
      return value && typeof value === "object" ? value : {};
    } catch (error) {
      return { body: event.data.text() };
    }
  }

  function text(value) {
    return typeof value === "string" && value.trim() !== "" ? value : null;
  }

  // The page snippet stores what a tap report needs (server, app id, SDK key, endpoint).
  function readConfig() {
    if (!self.caches) { return Promise.resolve(null); }
    return caches.open(CONFIG_CACHE)
      .then(function (cache) { return cache.match(CONFIG_KEY); })
      .then(function (response) { return response ? response.json() : null; })
      .catch(function () { return null; });
  }

  self.addEventListener("install", function () { self.skipWaiting(); });
  self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

  self.addEventListener("push", function (event) {
    var message = parse(event);
    var title = text(message.title) || FALLBACK_TITLE;
    var options = {
      body: text(message.body) || (text(message.title) ? "" : FALLBACK_BODY),
      data: { url: text(message.url), openpush: message.openpush || null, data: message.data === undefined ? null : message.data }
    };
    if (text(message.icon)) { options.icon = message.icon; }
    if (text(message.image)) { options.image = message.image; }
    if (text(message.badge)) { options.badge = message.badge; }
    if (text(message.tag)) { options.tag = message.tag; }
    event.waitUntil(self.registration.showNotification(title, options));
  });

  function reportTap(openpush) {
    if (!openpush || !openpush.notification_id) { return Promise.resolve(); }
    return readConfig().then(function (config) {
      if (!config || !config.serverURL || !config.appId || !config.sdkKey || !config.endpoint) { return; }
      var url = config.serverURL.replace(/\/+$/, "") + "/v1/apps/" + encodeURIComponent(config.appId)
        + "/notifications/" + encodeURIComponent(openpush.notification_id) + "/opened";
      return fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-OP-SDK-Key": config.sdkKey },
        body: JSON.stringify({ token: config.endpoint })
      }).catch(function () {});
    });
  }

  function open(url) {
    if (!url) { return Promise.resolve(); }
    return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
      for (var i = 0; i < windows.length; i++) {
        if (windows[i].url === url && "focus" in windows[i]) { return windows[i].focus(); }
      }
      return self.clients.openWindow ? self.clients.openWindow(url) : null;
    });
  }

  self.addEventListener("notificationclick", function (event) {
    var data = event.notification.data || {};
    event.notification.close();
    event.waitUntil(Promise.all([open(data.url), reportTap(data.openpush)]));
  });

  self.OpenPushServiceWorker = { version: 1, fallbackTitle: FALLBACK_TITLE, fallbackBody: FALLBACK_BODY };
})();
