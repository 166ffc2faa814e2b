"""Reads one Web Push request as OpenPush sent it, with implementations that share nothing with
OpenPush: Mozilla's `http_ece` (RFC 8188/8291) decrypts the body with the browser's private key
and auth secret, and `cryptography` checks the VAPID JWT (RFC 8292) against the `k=` public key.

Usage: webpush_independent_check.py <request.json>
request.json: {"body": base64url, "browser_private_key_pem": str, "auth_secret": base64url,
               "authorization": str, "audience": str, "now": unix seconds}
Prints {"plaintext": str, "claims": {...}, "public_key": base64url} on success; exits 1 with why."""
import base64, json, sys

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def unbase64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def fail(why):
    print(why, file=sys.stderr)
    sys.exit(1)


def main():
    request = json.load(open(sys.argv[1]))
    browser_key = serialization.load_pem_private_key(request["browser_private_key_pem"].encode(), password=None)
    plaintext = http_ece.decrypt(unbase64url(request["body"]), private_key=browser_key,
                                 auth_secret=unbase64url(request["auth_secret"]), version="aes128gcm")

    scheme, _, parameters = request["authorization"].partition(" ")
    if scheme != "vapid": fail(f"the Authorization scheme is {scheme!r}, not vapid")
    fields = dict(part.strip().split("=", 1) for part in parameters.split(","))
    token, key = fields.get("t"), fields.get("k")
    if not token or not key: fail("the Authorization header lacks t= or k=")
    header_part, claims_part, signature_part = token.split(".")
    header = json.loads(unbase64url(header_part))
    if header.get("alg") != "ES256": fail(f"the JWT header is {header}, not ES256")
    signature = unbase64url(signature_part)
    if len(signature) != 64: fail(f"an ES256 signature is 64 bytes, got {len(signature)}")
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unbase64url(key))
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{header_part}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        fail("the VAPID JWT's signature does not verify against k=")
    claims = json.loads(unbase64url(claims_part))
    if claims.get("aud") != request["audience"]: fail(f"aud is {claims.get('aud')!r}, not {request['audience']!r}")
    if not request["now"] < claims.get("exp", 0) <= request["now"] + 24 * 3600:
        fail(f"exp {claims.get('exp')} is not within 24 h after {request['now']}")
    print(json.dumps({"plaintext": plaintext.decode(), "claims": claims, "public_key": key}))


main()
