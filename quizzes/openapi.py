"""The OpenAPI 3.1 description of the site's JSON API, served at /api/openapi.json.

Apps describe their own endpoints and add them here when their API module is imported:

    from quizzes.openapi import register
    register(
        paths={"/api/labs/runs": {"post": {...}}},
        components={"schemas": {"LabRun": {...}}, "securitySchemes": {...}},
    )

`register(paths: dict, components: dict) -> None` merges path items by path and components by
section ("schemas", "securitySchemes", ...) and name. Registering the same thing twice is fine (a
module imported again); a different definition under a name already taken raises ValueError, so two
apps can never silently overwrite each other. The document is built at request time by `document()`.
"""

import copy

from django.conf import settings

_paths: dict[str, dict] = {}
_components: dict[str, dict[str, dict]] = {}


def _merge(target: dict, additions: dict, where: str) -> None:
    for name, value in additions.items():
        if name in target and target[name] != value:
            raise ValueError(f"OpenAPI {where} '{name}' is already registered with a different definition")
        target[name] = copy.deepcopy(value)


def register(paths: dict, components: dict | None = None) -> None:
    for path, item in paths.items():
        _merge(_paths.setdefault(path, {}), item, f"operation on {path}:")
    for section, entries in (components or {}).items():
        _merge(_components.setdefault(section, {}), entries, f"component {section}/")


def document() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Gradient Accumulation Course API",
            "version": "1.0.0",
            "description": (
                "Certificates can be checked by anyone; signed credentials verify offline against "
                "/.well-known/jwks.json, and their status against the signed status list their "
                "credentialStatus names (W3C Bitstring Status List). Authenticated endpoints take a session or "
                "`Authorization: Bearer <token>` (tokens are created on the dashboard)."
            ),
        },
        "servers": [{"url": settings.SITE_URL}],
        "paths": copy.deepcopy(dict(sorted(_paths.items()))),
        "components": copy.deepcopy(_components),
    }


ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {"type": "string", "description": "What went wrong, in words for people."},
        "fields": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}

register(
    paths={
        "/api/certificates/{id}": {
            "get": {
                "operationId": "getCertificate",
                "summary": "A certificate, its status and its signed Open Badges 3.0 credential",
                "tags": ["certificates"],
                "parameters": [
                    {
                        "name": "id",
                        "in": "path",
                        "required": True,
                        "description": "The certificate ID, grouped (ABCD-EFGH-...) or not, any case.",
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "The certificate. Revoked and superseded ones are answered too.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Certificate"}}},
                    },
                    "404": {
                        "description": "No certificate was ever issued with this ID.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    },
                    "429": {
                        "description": "Too many requests.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    },
                },
            }
        },
        "/api/certificates/status/{number}": {
            "get": {
                "operationId": "getCertificateStatusList",
                "summary": "A signed W3C Bitstring Status List: the bit of a revoked or superseded certificate is 1",
                "description": (
                    "A BitstringStatusListCredential as a VC-JWT (EdDSA, kid in the header), the document a "
                    "credential's credentialStatus.statusListCredential names. statusPurpose is revocation; "
                    "encodedList is multibase base64url (prefix u) of the GZIP-compressed bitstring, bit 0 the "
                    "most significant bit of the first byte. Cached for 300 s; revalidate with If-None-Match."
                ),
                "tags": ["certificates"],
                "parameters": [
                    {
                        "name": "number",
                        "in": "path",
                        "required": True,
                        "description": "The list number, from 1.",
                        "schema": {"type": "integer"},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "The status list credential (compact JWS).",
                        "content": {"application/vc+jwt": {"schema": {"type": "string"}}},
                    },
                    "304": {"description": "Not modified since the ETag sent in If-None-Match."},
                    "404": {
                        "description": "No status list with this number.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    },
                },
            }
        },
        "/.well-known/jwks.json": {
            "get": {
                "operationId": "getSigningKeys",
                "summary": "The issuer's public Ed25519 keys (JWK Set), active first, retired keys kept",
                "tags": ["certificates"],
                "responses": {
                    "200": {
                        "description": "JWK Set (RFC 7517).",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JWKSet"}}},
                    }
                },
            }
        },
        "/api/openapi.json": {
            "get": {
                "operationId": "getOpenApi",
                "summary": "This document",
                "tags": ["meta"],
                "responses": {"200": {"description": "OpenAPI 3.1 document.", "content": {"application/json": {}}}},
            }
        },
    },
    components={
        "schemas": {
            "Error": ERROR_SCHEMA,
            "Certificate": {
                "type": "object",
                "required": ["id", "status", "name", "course", "issued_at", "score_band", "language", "credential"],
                "properties": {
                    "id": {"type": "string", "description": "Grouped form, e.g. ABCD-EFGH-IJKL-..."},
                    "status": {"type": "string", "enum": ["valid", "revoked", "superseded"]},
                    "revoked_at": {"type": ["string", "null"], "format": "date-time"},
                    "revocation_reason": {"type": ["string", "null"]},
                    "superseded_by": {"type": ["string", "null"], "description": "The ID that replaces this one."},
                    "name": {"type": "string", "description": "The learner's name as issued."},
                    "course": {"type": "string"},
                    "issued_at": {"type": "string", "format": "date-time"},
                    "score_band": {"type": "string", "examples": ["90–100%"]},
                    "language": {"type": "string", "enum": ["en", "hi", "fr"]},
                    "verification_url": {"type": "string", "format": "uri"},
                    "credential": {
                        "type": "string",
                        "description": "OpenBadgeCredential as a VC-JWT (compact JWS, alg EdDSA, kid in the header).",
                    },
                    "jwks_url": {"type": "string", "format": "uri"},
                },
            },
            "JWKSet": {
                "type": "object",
                "required": ["keys"],
                "properties": {
                    "keys": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["kty", "crv", "x", "kid"],
                            "properties": {
                                "kty": {"const": "OKP"},
                                "crv": {"const": "Ed25519"},
                                "x": {"type": "string"},
                                "kid": {"type": "string"},
                                "use": {"const": "sig"},
                                "alg": {"const": "EdDSA"},
                            },
                        },
                    }
                },
            },
        }
    },
)
