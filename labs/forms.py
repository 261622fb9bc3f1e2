from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from labs.training import config as lab_config
from labs.training.config import show
from labs.training.problems import Problem
from labs.workers import SIZE_TOO_BIG, Limits, site_limits, validate_for

# What a browser sends with the form besides the settings.
NOT_SETTINGS = frozenset({"csrfmiddlewaretoken"})

# The trainer's rules across settings as the form says them. The API's messages (labs.training.config,
# labs.workers) name its fields (accumulation_steps, "set processes to 1"); a learner filling in the
# form reads its labels. The parameters are the API message's own.
FORM_WORDING = {
    lab_config.N_SPLITS_BATCH: _(
        "Accumulation steps (N) must divide the effective batch size: %(effective)s is not divisible by %(n)s."
    ),
    lab_config.N_ABOVE_BATCH: _(
        "Accumulation steps (N = %(n)s) cannot be more than the effective batch size (%(effective)s): every "
        "micro-batch needs at least one sample."
    ),
    lab_config.PROCESSES_SPLIT_BATCH: _(
        "Processes (G) × accumulation steps (N) must divide the effective batch size, so that every process gets "
        "whole micro-batches: %(effective)s is not divisible by %(g)s × %(n)s = %(product)s."
    ),
    lab_config.OVER_BUDGET: _(
        "Optimizer steps × effective batch size must be at most %(budget)s samples; this run would use %(steps)s × "
        "%(effective)s = %(samples)s. Lower the optimizer steps or the effective batch size."
    ),
    lab_config.SIZE_NEEDS_SIZED_TASK: _(
        "The %(size)s model size is for the guides-lm task only; the other tasks have one size, tiny."
    ),
    lab_config.PRECISION_NEEDS_ONE_PROCESS: _(
        "The %(precision)s precision trains in one process: set Processes (G) to 1."
    ),
    lab_config.TOO_MANY_PROCESSES: _(
        "Processes (G) can be at most %(allowed)s on the worker machine; you chose %(got)s."
    ),
    lab_config.GPU_NEEDED: _("This choice needs a GPU worker, and none is connected now."),
    SIZE_TOO_BIG: _(
        "The %(size)s model needs more GPU memory than any connected worker has; the largest they take is %(largest)s."
    ),
}


def translate_problem(problem: str) -> str:
    """A message from labs.training in the reader's language (its message id and parameters)."""
    if isinstance(problem, Problem):
        return gettext(problem.message_id) % problem.params if problem.params else gettext(problem.message_id)
    return gettext(problem)


def form_message(problem: str) -> str:
    """A problem as the form says it (FORM_WORDING), else as the API does, in the reader's language."""
    wording = FORM_WORDING.get(getattr(problem, "message_id", None))
    if wording is None:
        return translate_problem(problem)
    return str(wording) % problem.params


def translated_problems(problems: dict[str, list[Problem]]) -> list[tuple[str | None, str]]:
    """validate_config's problems as (field, message in the reader's language); None: the whole form."""
    return [
        (None if field == lab_config.NON_FIELD else field, translate_problem(problem))
        for field, field_problems in problems.items()
        for problem in field_problems
    ]


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


def _number(field_class: type[forms.Field], label: str, bounds: tuple, **options) -> forms.Field:
    return field_class(label=label, min_value=bounds[0], max_value=bounds[1], **options)


def _choice(label: str, values: tuple, default: str | int | None = None, **options) -> forms.TypedChoiceField:
    """A setting with a default may be left out (forms and API clients from before it existed send none)."""
    if default is not None:
        options |= {"required": False, "initial": default, "empty_value": default}
    return forms.TypedChoiceField(label=label, choices=[(str(value), str(value)) for value in values], **options)


class RunForm(forms.Form):
    """The learner's own experiment. Field names, choices and limits are the API's, from
    `labs.training.config`, whose validate_config also checks the rules across fields."""

    task = _choice(_("Task"), lab_config.TASKS)
    norm = _choice(_("Normalization layer"), lab_config.NORMS)
    effective_batch_size = _number(forms.IntegerField, _("Effective batch size"), lab_config.EFFECTIVE_BATCH_RANGE)
    accumulation_steps = _number(
        forms.IntegerField,
        _("Accumulation steps (N)"),
        lab_config.ACCUMULATION_RANGE,
        help_text=_("The micro-batch is the effective batch ÷ N."),
    )
    loss_scaling = _choice(
        _("Loss scaling"),
        lab_config.LOSS_SCALINGS,
        help_text=_("mean: correct; sum: forgets to divide by N; mean_of_micro_means: averages per-micro-batch means."),
    )
    optimizer = _choice(_("Optimizer"), lab_config.OPTIMIZERS)
    learning_rate = _number(forms.FloatField, _("Learning rate"), lab_config.LEARNING_RATE_RANGE)
    steps = _number(forms.IntegerField, _("Optimizer steps"), lab_config.STEPS_RANGE)
    seed = _number(forms.IntegerField, _("Seed"), lab_config.SEED_RANGE)
    grad_clip = _number(
        forms.FloatField,
        _("Gradient clipping (max norm)"),
        (0.0001, lab_config.GRAD_CLIP_MAX),
        required=False,
        help_text=_("Leave empty for no clipping."),
    )

    processes = _choice(
        _("Processes (G)"),
        lab_config.PROCESS_COUNTS,
        1,
        coerce=int,
        help_text=_("Data parallelism: each process takes an equal share of the effective batch (b × N × G)."),
    )
    sync = _choice(
        _("Gradient all-reduce"),
        lab_config.SYNCS,
        "no_sync",
        help_text=_("no_sync: once per step (after the last micro-batch); every_micro: after every micro-batch."),
    )

    size = _choice(
        _("Model size (guides-lm)"),
        lab_config.SIZE_NAMES,
        "tiny",
        help_text=_("tiny runs on a CPU; small and medium need a GPU worker."),
    )
    precision = _choice(
        _("Precision"),
        lab_config.PRECISIONS,
        "fp32",
        help_text=_("fp32: exact (TF32 off); tf32: GPU only; bf16 and fp16: autocast, fp16 with a loss scaler."),
    )

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("initial", lab_config.DEFAULT_CONFIG)
        super().__init__(*args, **kwargs)
        self.run_config: lab_config.RunConfig | None = None
        self.limits = site_limits()
        self.fields["size"].help_text = f"{self.fields['size'].help_text} {sizes_text(self.limits)}"
        self.fields["steps"].help_text = run_limits_text(self.limits)

    def clean(self) -> dict:
        data = super().clean()
        self._check_names()
        # The trainer's rules over the settings that are valid, so that every problem shows at once: a
        # setting the form refused is missing from `data`, and its own error already says why.
        self.run_config, problems = validate_for(data, self.limits)
        for field, field_problems in problems.items():
            if field != lab_config.NON_FIELD and field in self.errors:
                continue
            for problem in field_problems:
                self.add_error(None if field == lab_config.NON_FIELD else field, form_message(problem))
        if self.errors:
            self.run_config = None
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
