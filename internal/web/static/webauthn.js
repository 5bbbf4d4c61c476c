// Security keys (WebAuthn): registering a key in the security settings
// (form#webauthn-register) and the sign-in's second step
// (form#webauthn-signin). The server sends the options of each ceremony as
// JSON with binary fields in base64url; this file turns them into the
// ArrayBuffers navigator.credentials wants and the browser's answer back
// into JSON. Each request carries the page's CSRF token (X-Csrf-Token).
"use strict";

(() => {
  const fromB64 = (s) => {
    const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "===".slice((b64.length + 3) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer;
  };
  const toB64 = (buf) => {
    let bin = "";
    for (const b of new Uint8Array(buf)) {
      bin += String.fromCharCode(b);
    }
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const descriptors = (list) => (list || []).map((c) => ({ ...c, id: fromB64(c.id) }));

  // answer reads a JSON answer, throwing its message when it is an error.
  const answer = async (response) => {
    let body = {};
    try {
      body = await response.json();
    } catch (e) {
      // not JSON (an error page): the status says enough
    }
    if (!response.ok) {
      throw new Error(body.message || response.statusText || "The request failed.");
    }
    return body;
  };

  const sendJSON = (url, token, value) => fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Csrf-Token": token },
    body: JSON.stringify(value),
  });

  // run starts a ceremony from form: status tells how it goes, the button
  // is off meanwhile.
  const run = (form, ceremony) => {
    const status = form.querySelector("#webauthn-status");
    const button = form.querySelector("button[type=submit]");
    const token = form.querySelector("input[name=_csrf]").value;
    status.textContent = "";
    if (!window.PublicKeyCredential || !navigator.credentials) {
      status.textContent = "This browser does not support security keys.";
      button.disabled = true;
      return;
    }
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      button.disabled = true;
      status.textContent = "Touch your security key when it asks…";
      try {
        await ceremony(token);
      } catch (e) {
        const name = e && e.name;
        status.textContent = name === "NotAllowedError"
          ? "The security key did not answer, or the request was cancelled. Try again."
          : name === "InvalidStateError"
            ? "This security key is registered already."
            : (e && e.message) || "The security key could not be used.";
        button.disabled = false;
      }
    });
  };

  const register = document.getElementById("webauthn-register");
  if (register) {
    run(register, async (token) => {
      const options = await answer(await fetch(register.action, {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-Csrf-Token": token },
        body: new URLSearchParams(new FormData(register)),
      }));
      const pk = options.publicKey;
      pk.challenge = fromB64(pk.challenge);
      pk.user.id = fromB64(pk.user.id);
      pk.excludeCredentials = descriptors(pk.excludeCredentials);
      const cred = await navigator.credentials.create({ publicKey: pk });
      const r = cred.response;
      await answer(await sendJSON("/user/settings/security/webauthn/register", token, {
        id: cred.id,
        rawId: toB64(cred.rawId),
        type: cred.type,
        authenticatorAttachment: cred.authenticatorAttachment || undefined,
        clientExtensionResults: cred.getClientExtensionResults(),
        response: {
          clientDataJSON: toB64(r.clientDataJSON),
          attestationObject: toB64(r.attestationObject),
          transports: r.getTransports ? r.getTransports() : [],
        },
      }));
      window.location.assign("/user/settings/security");
    });
  }

  const signin = document.getElementById("webauthn-signin");
  if (signin) {
    run(signin, async (token) => {
      const options = await answer(await fetch("/user/webauthn/assertion", { credentials: "same-origin" }));
      const pk = options.publicKey;
      pk.challenge = fromB64(pk.challenge);
      pk.allowCredentials = descriptors(pk.allowCredentials);
      const cred = await navigator.credentials.get({ publicKey: pk });
      const r = cred.response;
      const done = await answer(await sendJSON(signin.action, token, {
        id: cred.id,
        rawId: toB64(cred.rawId),
        type: cred.type,
        authenticatorAttachment: cred.authenticatorAttachment || undefined,
        clientExtensionResults: cred.getClientExtensionResults(),
        response: {
          clientDataJSON: toB64(r.clientDataJSON),
          authenticatorData: toB64(r.authenticatorData),
          signature: toB64(r.signature),
          userHandle: r.userHandle ? toB64(r.userHandle) : undefined,
        },
      }));
      window.location.assign(done.redirect || "/");
    });
  }
})();
