from typing import Literal, get_args, get_origin

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pydantic.fields import FieldInfo

from labs.training import config as lab_config
from labs.training.config import Limits, RunConfig, show
from labs.training.problems import Problem

# What a browser sends with the form besides the settings.
NOT_SETTINGS = frozenset({"csrfmiddlewaretoken"})

# The trainer's rules across settings as the form says them. The API's messages (labs.training.config)
# name its fields (accumulation_steps, "set processes to 1"); a learner filling in the form reads its
# labels. The parameters are the API message's own.
FORM_WORDING = {
    lab_config.N_SPLITS_BATCH: _(
        "Accumulation factor (N) must divide the effective batch size: %(effective)s is not divisible by %(n)s."
    ),
    lab_config.N_ABOVE_BATCH: _(
        "Accumulation factor (N = %(n)s) cannot be more than the effective batch size (%(effective)s): every "
        "micro-batch needs at least one sample."
    ),
    lab_config.PROCESSES_SPLIT_BATCH: _(
        "Processes (G) × accumulation factor (N) must divide the effective batch size, so that every process gets "
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
    lab_config.SIZE_TOO_BIG: _(
        "The %(size)s model needs more GPU memory than any connected worker has; the largest they take is %(largest)s."
    ),
}


def translate_problem(problem: str) -> str:
    """A message from labs.training in the reader's language."""
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


def limits_text(limits: Limits) -> str:  # what a run may ask for now: the queue API's `limits`
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


# Choices the API takes that the form does not offer: the data-parallel lab's mistake is the presets' to show.
NOT_OFFERED = {"loss_scaling": {lab_config.PER_RANK_SCALING}}


def form_field(name: str, field: FieldInfo) -> forms.Field:
    """A setting's form field from its RunConfig declaration; one with a default may be left out (forms
    and API clients from before it existed send none)."""
    options = {"label": _(field.title), "help_text": _(field.description) if field.description else ""}
    if not field.is_required():
        options |= {"required": False, "initial": field.default}
    if get_origin(field.annotation) is Literal:
        values = [value for value in get_args(field.annotation) if value not in NOT_OFFERED.get(name, ())]
        if field.default is not None and not field.is_required():
            options["empty_value"] = field.default
        choices = [(str(value), str(value)) for value in values]
        return forms.TypedChoiceField(choices=choices, coerce=type(values[0]), **options)
    low, high = lab_config.declared_range(name)
    if field.annotation is int:
        return forms.IntegerField(min_value=low, max_value=high, **options)
    return forms.FloatField(min_value=low if field.is_required() else None, max_value=high, **options)


class RunForm(forms.Form):
    """The learner's own experiment: every setting of RunConfig, checked by validate_config against the
    `limits` the view passes in (labs.workers.site_limits)."""

    def __init__(self, data=None, *, limits: Limits, **kwargs) -> None:
        kwargs.setdefault("initial", lab_config.DEFAULT_CONFIG)
        super().__init__(data, **kwargs)
        self.run_config: RunConfig | None = None
        self.limits = limits
        self.fields["size"].help_text = f"{self.fields['size'].help_text} {sizes_text(limits)}"
        self.fields["steps"].help_text = run_limits_text(limits)

    def clean(self) -> dict:
        data = super().clean()
        self._check_names()
        # The trainer's rules over the settings that are valid, so that every problem shows at once: a
        # setting the form refused is missing from `data`, and its own error already says why.
        self.run_config, problems = lab_config.validate_config(data, self.limits)
        for field, field_problems in problems.items():
            if field != lab_config.NON_FIELD and field in self.errors:
                continue
            for problem in field_problems:
                self.add_error(None if field == lab_config.NON_FIELD else field, form_message(problem))
        if self.errors:
            self.run_config = None
        return data

    def _check_names(self) -> None:
        """As the API does: a setting unknown or sent twice is refused, not dropped or overwritten."""
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


RunForm.base_fields = {name: form_field(name, field) for name, field in RunConfig.model_fields.items()}
