// The certificate check on /<lang>/certificates/verify/, run entirely in the visitor's browser: the
// credential (pasted, or found inside a dropped PDF) is never sent anywhere. Only public documents are
// downloaded: the JWKS, the status list the credential names and, when needed, the certificate's public
// record. Signatures are checked with WebCrypto (RS256: RSASSA-PKCS1-v1_5 with SHA-256; EdDSA: Ed25519);
// the status is read from the 1EdTech revocation list (credentials issued since kid URLs) or from the
// W3C Bitstring Status List (credentials issued before). Every message shown is in the page, translated.
(function () {
  "use strict";

  var root = document.getElementById("credential-check");
  if (!root) return;
  var result = document.getElementById("credential-result");
  var JWT = /eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+/;
  var ID = /\/certificates\/([A-Z2-7]{4}(?:-[A-Z2-7]{4}){7})\/?$/;

  // A verdict is an outcome, not a bug: it stops the check and names the message to show.
  function Verdict(name, details) { this.name = name; this.details = details || {}; }

  function bytesFromBase64url(text) {
    if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Verdict("tampered");
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) base64 += "=";
    var binary;
    try { binary = atob(base64); } catch (e) { throw new Verdict("tampered"); }
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  function jsonFromBase64url(text) {
    try { return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytesFromBase64url(text))); }
    catch (e) { throw new Verdict("tampered"); }
  }

  function parseJwt(token) {
    var parts = token.split(".");
    if (parts.length !== 3) throw new Verdict("unreadable");
    var header = jsonFromBase64url(parts[0]);
    var payload = jsonFromBase64url(parts[1]);
    if (!header || typeof header !== "object" || !payload || typeof payload !== "object") throw new Verdict("tampered");
    return {
      header: header,
      payload: payload,
      signed: new TextEncoder().encode(parts[0] + "." + parts[1]),
      signature: bytesFromBase64url(parts[2]),
    };
  }

  async function download(url, accept) {
    var response;
    try {
      // no-cache: revalidate (ETag) so that a revocation made a minute ago is seen now.
      response = await fetch(url, { credentials: "omit", cache: "no-cache", headers: { Accept: accept } });
    } catch (e) { throw new Verdict("unavailable"); }
    if (!response.ok) throw new Verdict("unavailable");
    return response;
  }

  // The JOSE algorithms we sign with, as WebCrypto knows them ("Ed25519" is RFC 9864's name for EdDSA).
  var ALGORITHMS = {
    RS256: {
      kty: "RSA",
      params: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      jwk: function (key) { return { kty: "RSA", n: key.n, e: key.e, alg: "RS256" }; },
    },
    EdDSA: {
      kty: "OKP",
      params: { name: "Ed25519" },
      jwk: function (key) { return { kty: "OKP", crv: "Ed25519", x: key.x }; },
    },
  };
  ALGORITHMS.Ed25519 = ALGORITHMS.EdDSA;

  // True when `jwt` is signed by one of the published keys; a key we never published is a verdict.
  // The key must be of the kind the header's alg names, so no header can make one key verify as another.
  async function signedByUs(jwt, jwks) {
    var algorithm = Object.prototype.hasOwnProperty.call(ALGORITHMS, jwt.header.alg) && ALGORITHMS[jwt.header.alg];
    if (!algorithm) throw new Verdict("tampered");
    var jwk = (jwks.keys || []).find(function (key) { return key.kid === jwt.header.kid; });
    if (!jwk) throw new Verdict("unknown-key");
    if (jwk.kty !== algorithm.kty) throw new Verdict("tampered");
    var key = await crypto.subtle.importKey("jwk", algorithm.jwk(jwk), algorithm.params, false, ["verify"]);
    return crypto.subtle.verify(algorithm.params, key, jwt.signature, jwt.signed);
  }

  // A status document's address, only on this site: the page never fetches what a credential names elsewhere.
  function ownUrl(text) {
    var url;
    try { url = new URL(String(text), location.href); } catch (e) { throw new Verdict("unavailable"); }
    if (url.origin !== location.origin) throw new Verdict("unavailable");
    return url;
  }

  async function gunzip(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  // The credential's bit in its signed status list (W3C Bitstring Status List v1.0).
  async function statusBit(entry, jwks) {
    var url = ownUrl(entry.statusListCredential);
    var list = parseJwt((await (await download(url.href, "application/vc+jwt")).text()).trim());
    var subject = list.payload.credentialSubject || {};
    var types = list.payload.type || [];
    var fits = types.indexOf("BitstringStatusListCredential") >= 0 && list.payload.id === entry.statusListCredential &&
      subject.statusPurpose === entry.statusPurpose && typeof subject.encodedList === "string" &&
      subject.encodedList.charAt(0) === "u";
    if (!fits || !(await signedByUs(list, jwks))) throw new Verdict("unavailable");
    var bits = await gunzip(bytesFromBase64url(subject.encodedList.slice(1)));
    var index = Number(entry.statusListIndex);
    if (!Number.isInteger(index) || index < 0 || index >= bits.length * 8) throw new Verdict("unavailable");
    return (bits[index >> 3] >> (7 - (index & 7))) & 1;
  }

  // Whether the 1EdTech revocation list names the credential (1EdTech Revocation List Status Method:
  // revoked when its id is listed with `revoked` true or absent).
  async function listedAsRevoked(entry, payload) {
    var url = ownUrl(entry.id);
    var list;
    try { list = await (await download(url.href, "application/json")).json(); }
    catch (e) { throw new Verdict("unavailable"); }
    if (!list || list.id !== entry.id || list.issuer !== root.dataset.issuer || !Array.isArray(list.revokedCredential)) {
      throw new Verdict("unavailable");
    }
    return list.revokedCredential.some(function (item) {
      return item && item.id === payload.id && item.revoked !== false;
    });
  }

  // True when the credential's status method says it no longer counts.
  async function withdrawnNow(payload, jwks) {
    var entry = payload.credentialStatus;
    if (entry && entry.type === "1EdTechRevocationList") return listedAsRevoked(entry, payload);
    if (entry && entry.type === "BitstringStatusListEntry") return (await statusBit(entry, jwks)) === 1;
    throw new Verdict("unavailable");
  }

  // The certificate's public page: the credential's evidence or, in credentials issued before
  // urn:uuid ids, its id.
  function certificatePage(payload) {
    var places = [payload.id].concat((payload.evidence || []).map(function (item) { return item && item.id; }));
    return places.map(function (place) { return String(place || ""); }).find(function (place) { return ID.test(place); }) || "";
  }

  function certificateId(payload) {
    var match = ID.exec(certificatePage(payload));
    return match ? match[1] : null;
  }

  // The issuer's public record of a certificate: why it was withdrawn (revoked or superseded), the
  // name a hashed identifier stands for, and the status of credentials issued before status lists.
  async function publicRecord(payload) {
    var id = certificateId(payload);
    if (!id) return null;
    try {
      var url = root.dataset.recordUrl.replace("CERTIFICATE-ID", id);
      return await (await download(url, "application/json")).json();
    } catch (e) { return null; }
  }

  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), function (byte) { return byte.toString(16).padStart(2, "0"); }).join("");
  }

  // The name to show: as written in the credential, or, when it holds only a salted hash (OB 3.0
  // IdentityHash), the name of the public record if it hashes to the same value; otherwise none.
  async function shownName(payload) {
    var identifier = ((payload.credentialSubject || {}).identifier || [])[0] || {};
    if (identifier.hashed !== true) return identifier.identityHash;
    var record = await publicRecord(payload);
    if (!record || typeof record.name !== "string") return "";
    var input = new TextEncoder().encode(record.name.normalize("NFC") + (identifier.salt || ""));
    var computed = "sha256$" + hex(await crypto.subtle.digest("SHA-256", input));
    return computed === String(identifier.identityHash).toLowerCase() ? record.name : "";
  }

  function withdrawn(record) {
    if (record && record.status === "superseded") return new Verdict("superseded", { replacement: record.superseded_by });
    return new Verdict("revoked", { reason: record && record.revocation_reason });
  }

  async function check(token) {
    var jwt = parseJwt(token);
    var jwks = await (await download(root.dataset.jwksUrl, "application/json")).json();
    if (!(await signedByUs(jwt, jwks))) throw new Verdict("tampered");
    var payload = jwt.payload;
    var details = { payload: payload };
    if (payload.credentialStatus) {
      if (!(await withdrawnNow(payload, jwks))) return new Verdict("valid", details);
      var shown = withdrawn(await publicRecord(payload));
      shown.details.payload = payload;
      return shown;
    }
    var record = await publicRecord(payload); // issued before status lists: only the record knows
    if (!record) throw new Verdict("unavailable");
    var verdict = record.status === "valid" ? new Verdict("valid") : withdrawn(record);
    verdict.details.payload = payload;
    return verdict;
  }

  function fill(name, text, href) {
    var element = result.querySelector('[data-field="' + name + '"]');
    element.textContent = text || "";
    if (href !== undefined) element.setAttribute("href", href);
  }

  // A date as the site's pages write it (config/formats): day, the month's name as the page gives
  // it, year, in UTC like them ("7 Dec 2026", "7 दिसंबर 2026", "7 déc. 2026").
  var MONTH_NAMES = (root.dataset.monthNames || "").split("|");

  function writtenDate(moment) {
    return moment.getUTCDate() + " " + MONTH_NAMES[moment.getUTCMonth()] + " " + moment.getUTCFullYear();
  }

  function showDetails(payload, name) {
    var subject = payload.credentialSubject || {};
    var resultValue = ((subject.result || [])[0] || {}).value;
    var issued = new Date(payload.validFrom);
    var language = document.documentElement.lang || undefined;
    fill("name", name);
    fill("issued", isNaN(issued) ? "" : writtenDate(issued));
    // French sets a narrow no-break space before a number's % ("90–100 %"), as the site's French pages do.
    fill("band", language === "fr" && resultValue ? String(resultValue).replace(/(\d) ?%/g, "$1\u202f%") : resultValue);
    var page = certificatePage(payload);
    fill("page", page, page);
    result.querySelector('[data-show="details"]').hidden = false;
  }

  function show(verdict) {
    result.querySelectorAll("[data-verdict], [data-show]").forEach(function (element) { element.hidden = true; });
    result.querySelector('[data-verdict="' + verdict.name + '"]').hidden = false;
    var details = verdict.details;
    if (details.reason) {
      fill("reason", details.reason);
      result.querySelector('[data-show="reason"]').hidden = false;
    }
    if (details.replacement) {
      // The replacement's page, in this page's language: /<lang>/certificates/<ID>/.
      fill("replacement", details.replacement, location.pathname.replace(/verify\/?$/, details.replacement + "/"));
    }
    if (details.payload) showDetails(details.payload, details.name);
  }

  async function run(text) {
    show(new Verdict("checking"));
    var found = JWT.exec(text || "");
    var verdict;
    try {
      verdict = found ? await check(found[0]) : new Verdict("unreadable");
      if (verdict.details.payload) verdict.details.name = await shownName(verdict.details.payload);
    } catch (error) {
      verdict = error instanceof Verdict ? error : new Verdict(error && error.name === "DataError" ? "tampered" : "unavailable");
    }
    show(verdict);
  }

  // A PDF (or a saved .jwt) is read here with FileReader; the JWT is stored uncompressed inside the
  // PDF as an attached file, so finding its text among the bytes is enough.
  function readFile(file) {
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () { run(new TextDecoder("latin1").decode(new Uint8Array(reader.result))); };
    reader.onerror = function () { show(new Verdict("unreadable")); };
    reader.readAsArrayBuffer(file);
  }

  var textarea = document.getElementById("credential-jwt");
  var fileInput = document.getElementById("credential-file");
  var drop = document.getElementById("credential-drop");
  document.getElementById("credential-check-button").addEventListener("click", function () { run(textarea.value); });
  fileInput.addEventListener("change", function () { readFile(fileInput.files[0]); });
  drop.addEventListener("dragover", function (event) { event.preventDefault(); });
  drop.addEventListener("drop", function (event) {
    event.preventDefault();
    readFile(event.dataTransfer.files[0]);
  });
})();
