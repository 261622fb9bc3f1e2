from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from labs.training import config as lab_config
from labs.training.parsers import show
from labs.training.problems import Problem
from labs.workers import Limits, site_limits, validate_for

# What a browser sends with the form besides the settings.
NOT_SETTINGS = frozenset({"csrfmiddlewaretoken"})


def translate_problem(problem: str) -> str:
    """A message from labs.training in the reader's language (its message id and parameters)."""
    if isinstance(problem, Problem):
        return gettext(problem.message_id) % problem.params if problem.params else gettext(problem.message_id)
    return gettext(problem)


def translated_errors(errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """validate_config's errors in the reader's language."""
    return {field: [translate_problem(message) for message in messages] for field, messages in errors.items()}


def limits_text(limits: Limits) -> str:
    """What a run may ask for now, given the connected workers (the queue API's `limits`)."""
    return f"{sizes_text(limits)} {run_limits_text(limits)}"


def sizes_text(limits: Limits) -> str:
    if "cuda" in limits.device_classes or limits.device_class == "cuda":
        return gettext("Sizes you can run now: %(sizes)s.") % {"sizes": ", ".join(limits.sizes)}
    return gettext("No GPU worker is connected now: only the tiny size can run.")


def run_limits_text(limits: Limits) -> str:
    run = limits.run
    return gettext(
        "A run may have up to %(steps)s steps, an effective batch of up to %(batch)s and %(samples)s samples "
        "(steps × effective batch) now."
    ) % {"steps": f"{run.steps:,}", "batch": f"{run.effective_batch_size:,}", "samples": f"{run.sample_budget:,}"}


def _choices(values: tuple) -> list[tuple[str, str]]:
    return [(str(value), str(value)) for value in values]


class RunForm(forms.Form):
    """The learner's own experiment. Field names, choices and limits are the API's, from
    `labs.training.config`, whose validate_config also checks the rules across fields."""

    task = forms.ChoiceField(label=_("Task"), choices=_choices(lab_config.TASKS))
    norm = forms.ChoiceField(label=_("Normalization layer"), choices=_choices(lab_config.NORMS))
    effective_batch_size = forms.IntegerField(
        label=_("Effective batch size"),
        min_value=lab_config.EFFECTIVE_BATCH_RANGE[0],
        max_value=lab_config.EFFECTIVE_BATCH_RANGE[1],
    )
    accumulation_steps = forms.IntegerField(
        label=_("Accumulation steps (N)"),
        min_value=lab_config.ACCUMULATION_RANGE[0],
        max_value=lab_config.ACCUMULATION_RANGE[1],
        help_text=_("The micro-batch is the effective batch ÷ N."),
    )
    loss_scaling = forms.ChoiceField(
        label=_("Loss scaling"),
        choices=_choices(lab_config.LOSS_SCALINGS),
        help_text=_("mean: correct; sum: forgets to divide by N; mean_of_micro_means: averages per-micro-batch means."),
    )
    optimizer = forms.ChoiceField(label=_("Optimizer"), choices=_choices(lab_config.OPTIMIZERS))
    learning_rate = forms.FloatField(
        label=_("Learning rate"),
        min_value=lab_config.LEARNING_RATE_RANGE[0],
        max_value=lab_config.LEARNING_RATE_RANGE[1],
    )
    steps = forms.IntegerField(
        label=_("Optimizer steps"), min_value=lab_config.STEPS_RANGE[0], max_value=lab_config.STEPS_RANGE[1]
    )
    seed = forms.IntegerField(label=_("Seed"), min_value=lab_config.SEED_RANGE[0], max_value=lab_config.SEED_RANGE[1])
    grad_clip = forms.FloatField(
        label=_("Gradient clipping (max norm)"),
        required=False,
        min_value=0.0001,
        max_value=lab_config.GRAD_CLIP_MAX,
        help_text=_("Leave empty for no clipping."),
    )

    processes = forms.TypedChoiceField(
        label=_("Processes (G)"),
        choices=_choices(lab_config.PROCESS_COUNTS),
        coerce=int,
        required=False,
        empty_value=1,  # forms and API clients from before data parallelism send none
        initial=1,
        help_text=_("Data parallelism: each process takes an equal share of the effective batch (b × N × G)."),
    )
    sync = forms.ChoiceField(
        label=_("Gradient all-reduce"),
        choices=_choices(lab_config.SYNCS),
        required=False,
        initial="no_sync",
        help_text=_("no_sync: once per step (after the last micro-batch); every_micro: after every micro-batch."),
    )

    size = forms.ChoiceField(
        label=_("Model size (guides-lm)"),
        choices=_choices(lab_config.SIZE_NAMES),
        required=False,
        initial="tiny",
        help_text=_("tiny runs on a CPU; small and medium need a GPU worker."),
    )
    precision = forms.ChoiceField(
        label=_("Precision"),
        choices=_choices(lab_config.PRECISIONS),
        required=False,
        initial="fp32",
        help_text=_("fp32: exact (TF32 off); tf32: GPU only; bf16 and fp16: autocast, fp16 with a loss scaler."),
    )

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("initial", lab_config.DEFAULT_CONFIG)
        super().__init__(*args, **kwargs)
        self.fields["learning_rate"].widget.attrs["step"] = "any"
        self.fields["grad_clip"].widget.attrs["step"] = "any"
        self.run_config: lab_config.RunConfig | None = None
        self.limits = site_limits()
        self.fields["size"].help_text = format_lazy("{} {}", self.fields["size"].help_text, sizes_text(self.limits))
        self.fields["steps"].help_text = run_limits_text(self.limits)

    def clean(self) -> dict:
        data = super().clean()
        self._check_names()
        if self.errors:
            return data
        data["sync"] = data.get("sync") or "no_sync"
        data["size"] = data.get("size") or "tiny"
        data["precision"] = data.get("precision") or "fp32"
        self.run_config, errors = validate_for(data, self.limits)
        for field, messages in translated_errors(errors).items():
            for message in messages:
                self.add_error(None if field == lab_config.NON_FIELD else field, message)
        return data

    def _check_names(self) -> None:
        """As the API does: a setting the form does not know, or one sent twice, is refused rather
        than dropped or silently overwritten, so the run trained is the one asked for."""
        known = ", ".join(lab_config.FIELDS)
        getlist = getattr(self.data, "getlist", lambda name: [self.data[name]])
        for name in self.data:
            if name in NOT_SETTINGS:
                continue
            if name not in self.fields:
                problem = Problem(lab_config.UNKNOWN_SETTING, got=show(name), known=known)
            elif len(getlist(name)) > 1:
                problem = Problem(lab_config.REPEATED_SETTING, name=name)
            else:
                continue
            self.add_error(None, translate_problem(problem))
