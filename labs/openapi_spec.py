"""The labs API in OpenAPI 3 terms, merged into /api/openapi.json by quizzes.openapi.register."""

from labs.training import config as lab_config

_ERROR = {"$ref": "#/components/schemas/LabError"}
_RUN = {"$ref": "#/components/schemas/LabRun"}
_RUN_ID = {"name": "run_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_SECURITY = [{"bearerAuth": []}, {"sessionAuth": []}]


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_RUN_PROPERTIES = {
    "id": {"type": "integer"},
    "status": {"type": "string", "enum": ["queued", "running", "succeeded", "failed", "cancelled"]},
    "label": {"type": "string"},
    "preset": {"type": ["string", "null"]},
    "config": {"$ref": "#/components/schemas/LabRunConfig"},
    "code_version": {"type": "string"},
    "progress": {
        "type": "object",
        "properties": {
            "done_steps": {"type": "integer"},
            "total_steps": {"type": "integer"},
            "percent": {"type": "integer"},
        },
    },
    "device": {"type": ["string", "null"], "examples": ["cuda:0 NVIDIA H200", "cpu"]},
    "torch_version": {"type": ["string", "null"]},
    "metrics": {
        "type": "object",
        "properties": {
            name: {"type": ["number", "null"]}
            for name in (
                "final_loss",
                "val_loss",
                "val_accuracy",
                "samples_per_second",
                "tokens_per_second",
                "wall_seconds",
                "peak_activation_bytes",
                "grad_equivalence_error",
                "allreduce_calls",
                "allreduce_bytes",
                "communication_seconds",
                "compute_seconds",
            )
        }
        | {"diverged": {"type": ["boolean", "null"]}},
    },
    "curve": {"type": "array", "items": {"$ref": "#/components/schemas/LabCurvePoint"}},
    "validation": {"type": "array", "items": {"type": "object"}},
    "reused_from": {
        "type": ["integer", "null"],
        "description": "Set when identical settings had already been trained: the stored result.",
    },
    "cancel_requested": {"type": "boolean"},
    "error": {"type": ["string", "null"], "description": "Why the run failed."},
    "created_at": {"type": "string", "format": "date-time"},
    "finished_at": {"type": ["string", "null"], "format": "date-time"},
}
_RUN_REQUIRED = ["id", "status", "config", "progress", "metrics", "curve", "error"]


COMPONENTS = {
    "securitySchemes": {
        "bearerAuth": {"type": "http", "scheme": "bearer", "description": "A personal API token from the dashboard."},
        "sessionAuth": {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": "A logged-in browser session (send the CSRF token in X-CSRFToken).",
        },
    },
    "schemas": {
        "LabError": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {"type": "string"},
                "fields": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                    "description": "Messages per setting; `__all__` holds those about no single setting.",
                },
            },
        },
        "LabRunConfig": {
            "type": "object",
            "additionalProperties": False,
            "required": [name for name in lab_config.FIELDS if name not in ("grad_clip", "processes", "sync")],
            "properties": {
                "task": {"type": "string", "enum": list(lab_config.TASKS)},
                "norm": {"type": "string", "enum": list(lab_config.NORMS)},
                "effective_batch_size": {
                    "type": "integer",
                    "minimum": lab_config.EFFECTIVE_BATCH_RANGE[0],
                    "maximum": lab_config.EFFECTIVE_BATCH_RANGE[1],
                },
                "accumulation_steps": {
                    "type": "integer",
                    "minimum": lab_config.ACCUMULATION_RANGE[0],
                    "maximum": lab_config.ACCUMULATION_RANGE[1],
                    "description": "N; must divide effective_batch_size (micro-batch = effective ÷ N).",
                },
                "loss_scaling": {
                    "type": "string",
                    "enum": [*lab_config.LOSS_SCALINGS, lab_config.PER_RANK_SCALING],
                    "description": f"{lab_config.PER_RANK_SCALING}: with 2 or more processes only, each divides "
                    "by its own token count (the mistake the data-parallel lab shows).",
                },
                "optimizer": {"type": "string", "enum": list(lab_config.OPTIMIZERS)},
                "learning_rate": {
                    "type": "number",
                    "minimum": lab_config.LEARNING_RATE_RANGE[0],
                    "maximum": lab_config.LEARNING_RATE_RANGE[1],
                },
                "steps": {
                    "type": "integer",
                    "minimum": lab_config.STEPS_RANGE[0],
                    "maximum": lab_config.STEPS_RANGE[1],
                    "description": f"Optimizer steps; steps × effective_batch_size ≤ {lab_config.SAMPLE_BUDGET}.",
                },
                "seed": {"type": "integer", "minimum": lab_config.SEED_RANGE[0], "maximum": lab_config.SEED_RANGE[1]},
                "processes": {
                    "type": "integer",
                    "enum": list(lab_config.PROCESS_COUNTS),
                    "default": 1,
                    "description": "G: DistributedDataParallel processes; G × N must divide effective_batch_size. "
                    "Capped by the worker (LAB_MAX_PROCESSES).",
                },
                "sync": {
                    "type": "string",
                    "enum": list(lab_config.SYNCS),
                    "default": "no_sync",
                    "description": "no_sync: one all-reduce per optimizer step; every_micro: one per micro-batch.",
                },
                "grad_clip": {
                    "type": ["number", "null"],
                    "exclusiveMinimum": 0,
                    "maximum": lab_config.GRAD_CLIP_MAX,
                    "description": "Max gradient norm, applied after accumulation; null: no clipping.",
                },
            },
        },
        "LabCurvePoint": {
            "type": "object",
            "properties": {
                "step": {"type": "integer"},
                "loss": {"type": ["number", "null"]},
                "grad_norm": {"type": ["number", "null"], "description": "Before clipping."},
                "lr": {"type": "number"},
                "samples": {"type": "integer"},
                "tokens": {"type": ["integer", "null"], "description": "tiny-lm only."},
                "seconds": {"type": "number"},
            },
        },
        "LabRun": {
            "type": "object",
            "required": [*_RUN_REQUIRED, "queue"],
            "properties": _RUN_PROPERTIES | {"queue": {"$ref": "#/components/schemas/LabRunQueue"}},
        },
        "LabRunQueue": {
            "type": "object",
            "required": ["position", "waiting", "workers_connected", "estimate_seconds"],
            "properties": {
                "position": {
                    "type": ["integer", "null"],
                    "minimum": 1,
                    "description": "1: the next run a worker takes. null unless the run is queued.",
                },
                "waiting": {"type": "integer", "minimum": 0, "description": "Runs queued, from every learner."},
                "workers_connected": {"type": "integer", "minimum": 0, "description": "0: the run waits for one."},
                "estimate_seconds": {
                    "type": ["number", "null"],
                    "description": "Until a queued run should be done, from recent runs; null when unknown.",
                },
            },
        },
        "LabQueue": {
            "type": "object",
            "required": ["workers", "waiting"],
            "properties": {
                "workers": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "device", "running"],
                        "properties": {
                            "name": {"type": "string"},
                            "device": {"type": "string", "examples": ["cpu", "NVIDIA H200"]},
                            "running": {"type": ["integer", "null"], "description": "Id of the run it trains now."},
                        },
                    },
                },
                "waiting": {"type": "integer", "minimum": 0},
            },
        },
        "LabRunWithoutCurve": {
            "type": "object",
            "description": "A run as the cancel answer gives it: everything but the loss curve.",
            "required": [name for name in _RUN_REQUIRED if name != "curve"],
            "properties": {name: value for name, value in _RUN_PROPERTIES.items() if name != "curve"},
        },
        "LabRunCreated": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "status": {"type": "string"},
                "reused": {"type": "boolean"},
                "url": {"type": "string"},
            },
        },
    },
}

PATHS = {
    "/api/labs/runs": {
        "post": {
            "summary": "Submit a lab run",
            "tags": ["labs"],
            "security": _SECURITY,
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LabRunConfig"}}},
            },
            "responses": {
                "201": _json(
                    {"$ref": "#/components/schemas/LabRunCreated"}, "Stored and queued (or a stored result reused)."
                ),
                "400": _json(_ERROR, "Invalid settings, with messages per field."),
                "401": _json(_ERROR, "Not logged in and no valid token."),
                "403": _json(_ERROR, "A session request without a valid CSRF token."),
                "429": _json(_ERROR, "Too many submissions, too many runs waiting, or the daily budget is spent."),
            },
        }
    },
    "/api/labs/runs/{run_id}": {
        "get": {
            "summary": "A lab run: status, progress, metrics and the loss curve",
            "tags": ["labs"],
            "security": [*_SECURITY, {}],
            "parameters": [_RUN_ID],
            "responses": {
                "200": _json(_RUN, "The run."),
                "404": _json(_ERROR, "No such run, or it is private."),
            },
        }
    },
    "/api/labs/queue": {
        "get": {
            "summary": "The lab queue: connected workers, what each runs, and how many runs wait",
            "tags": ["labs"],
            "security": [*_SECURITY, {}],
            "responses": {"200": _json({"$ref": "#/components/schemas/LabQueue"}, "The queue now.")},
        }
    },
    "/api/labs/runs/{run_id}/cancel": {
        "post": {
            "summary": "Cancel a queued or running lab run",
            "tags": ["labs"],
            "security": _SECURITY,
            "parameters": [_RUN_ID],
            "responses": {
                "200": _json(
                    {"$ref": "#/components/schemas/LabRunWithoutCurve"},
                    "Cancelled, or the worker was asked to stop (it does so within a second).",
                ),
                "401": _json(_ERROR, "Not logged in and no valid token."),
                "404": _json(_ERROR, "No such run of yours."),
                "409": _json(_ERROR, "The run had already finished."),
            },
        }
    },
}
