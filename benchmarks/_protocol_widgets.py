"""The widgets of a protocol-level tab's page and their states, as Streamlit's frontend
(``streamlit/static``, 1.67) keeps them: each widget's value, the ``WidgetState`` sent for it,
a form's held values.  Private to :mod:`benchmarks.protocol`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates

#: element types the frontend registers a widget state for as soon as they are drawn
STATEFUL = ("radio", "selectbox", "multiselect", "slider", "number_input", "checkbox",
            "text_input", "text_area", "button_group", "file_uploader", "color_picker")
WIDGETS = STATEFUL + ("button", "download_button")


class WidgetError(LookupError):
    """A label that names no widget (or several), or an action the widget does not take."""


@dataclass
class Widget:
    """A widget on the page and the value this tab holds for it (None: none yet)."""

    id: str
    type: str              # "button", "radio", "toggle", "select_slider", ...
    label: str
    options: list
    value: object
    form_id: str
    fragment_id: str
    disabled: bool
    proto: object = field(repr=False)

    @property
    def key(self):
        """The key the script gave it (the end of its id), or None."""
        key = self.id.split("-", 2)[-1] if self.id.startswith("$$ID-") else None
        return None if key in (None, "None") else key

    @property
    def is_submit(self):
        return self.type == "button" and self.proto.is_form_submitter

    @property
    def proto_kind(self):
        """The element's type (a toggle is a checkbox, a select slider a slider)."""
        return {"toggle": "checkbox", "select_slider": "slider"}.get(self.type, self.type)


def widget_type(kind, proto):
    if kind == "checkbox" and proto.type == proto.TOGGLE:
        return "toggle"
    if kind == "slider" and proto.type == proto.SELECT_SLIDER:
        return "select_slider"
    return kind


def _option_text(option):  # ButtonGroup's option as the frontend names it
    if option.HasField("content_icon") and option.content_icon:
        return f"{option.content_icon} {option.content}".strip()
    return option.content


def options_of(kind, proto):
    if kind == "button_group":
        return [_option_text(o) for o in proto.options]
    return list(getattr(proto, "options", ()))


def _has(proto, name):
    return proto.HasField(name)


def proto_value(kind, proto, current):
    """The value the frontend takes from the element: its default, or (``current``: the
    element says ``set_value``) the value the script set.  A Python value; None: no value."""
    opts = options_of(kind, proto)
    if kind in ("radio", "selectbox"):
        if current:
            return proto.raw_value if _has(proto, "raw_value") else None
        return opts[proto.default] if _has(proto, "default") and opts else None
    if kind == "multiselect":
        return list(proto.raw_values) if current else [opts[i] for i in proto.default]
    if kind == "button_group":
        if current:
            return list(proto.raw_values)
        return [opts[i] for i in proto.default if 0 <= i < len(opts)]
    if kind == "slider":
        if proto.type == proto.SELECT_SLIDER:
            raw = list(proto.raw_value) if current else []
            return raw if raw else [opts[int(i)] for i in proto.default]
        return list(proto.value) if current else list(proto.default)
    if kind == "number_input":
        if current and _has(proto, "value"):
            v = proto.value
        elif _has(proto, "default"):
            v = proto.default
        else:
            return None
        return int(v) if proto.data_type == proto.INT else v
    if kind == "checkbox":
        return proto.value if current else proto.default
    if kind in ("text_input", "text_area"):
        name = "value" if current else "default"
        return getattr(proto, name) if _has(proto, name) else None
    if kind == "color_picker":
        return proto.value if current else proto.default
    if kind == "file_uploader":
        return []
    raise WidgetError(f"no value of a {kind}")


def state_of(widget_id, kind, proto, value):
    """The WidgetState the frontend sends for ``value`` (see ``proto_value``)."""
    s = WidgetState(id=widget_id)
    if value is None:
        return s
    if kind in ("radio", "selectbox", "text_input", "text_area", "color_picker"):
        s.string_value = value
    elif kind in ("multiselect", "button_group"):
        s.string_array_value.data.extend(value)
    elif kind == "slider":
        if proto.type == proto.SELECT_SLIDER:
            s.string_array_value.data.extend(value)
        else:
            s.double_array_value.data.extend(value)
    elif kind == "number_input":
        if proto.data_type == proto.INT:
            s.int_value = int(value)
        else:
            s.double_value = float(value)
    elif kind == "checkbox":
        s.bool_value = bool(value)
    elif kind == "file_uploader":
        s.file_uploader_state_value.SetInParent()
    return s


def value_of(state):
    """A WidgetState's value as Python (None when it holds none)."""
    which = state.WhichOneof("value")
    if which is None:
        return None
    v = getattr(state, which)
    if which.endswith("_array_value"):
        return list(v.data)
    if which == "file_uploader_state_value":
        return [f.name for f in v.uploaded_file_info]
    return v


def user_value(widget, value):
    """``value`` given to ``Tab.set`` as the frontend stores it for ``widget`` (an option's
    index or its text for choices), or WidgetError."""
    kind, opts = widget.proto_kind, widget.options

    def option(v):
        if isinstance(v, int) and not isinstance(v, bool):
            if not 0 <= v < len(opts):
                raise WidgetError(f"{widget.label!r} has no option {v} (it has {len(opts)})")
            return opts[v]
        if v not in opts and not getattr(widget.proto, "accept_new_options", False):
            raise WidgetError(f"{widget.label!r} has no option {v!r}; options: {opts}")
        return v

    if kind in ("radio", "selectbox"):
        return option(value)
    if kind in ("multiselect", "button_group") or widget.type == "select_slider":
        values = value if isinstance(value, (list, tuple)) else [value]
        return [option(v) for v in values]
    if kind == "slider":
        values = value if isinstance(value, (list, tuple)) else [value]
        return [float(v) for v in values]
    if kind == "number_input":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise WidgetError(f"{widget.label!r} takes a number, not {value!r}")
        if widget.proto.data_type == widget.proto.INT and value != int(value):
            raise WidgetError(f"{widget.label!r} takes an integer, not {value!r}")
        return value
    if kind == "checkbox":
        if not isinstance(value, bool):
            raise WidgetError(f"{widget.label!r} takes True or False, not {value!r}")
        return value
    if kind in ("text_input", "text_area", "color_picker"):
        if not isinstance(value, str):
            raise WidgetError(f"{widget.label!r} takes a string, not {value!r}")
        return value
    raise WidgetError(f"{widget.label!r} is a {widget.type}: Tab.set cannot change it")


class States:
    """The frontend's WidgetStateManager: a state per widget id (in the order they came), the
    changes a form holds until it is submitted, and the ids of pending triggers."""

    def __init__(self):
        self.main = {}   # id -> WidgetState
        self.forms = {}  # form id -> {id -> WidgetState}

    def get(self, widget_id, form_id=""):
        if form_id and widget_id in self.forms.get(form_id, {}):
            return self.forms[form_id][widget_id]
        return self.main.get(widget_id)

    def seen(self, node):
        """A widget element arrived: the frontend registers its default (when it has no
        state yet) or the value the script set (``set_value``)."""
        kind = node.kind
        if kind not in STATEFUL:
            return
        proto = getattr(node.proto, kind)
        current = getattr(proto, "set_value", False)
        if not current and proto.id in self.main:
            return
        self.main[proto.id] = state_of(proto.id, kind, proto, proto_value(kind, proto, current))

    def user_set(self, widget, value):
        state = state_of(widget.id, widget.proto_kind, widget.proto, value)
        if widget.form_id:  # held by the form until it is submitted
            self.forms.setdefault(widget.form_id, {})[widget.id] = state
        else:
            self.main[widget.id] = state

    def submit(self, form_id):
        self.main.update(self.forms.pop(form_id, {}))

    def message(self, *triggers):
        """The WidgetStates of a rerun: every state, then the triggers (set for this message
        only, as the frontend deletes them once sent)."""
        out = WidgetStates()
        for wid, state in self.main.items():
            if wid not in triggers:
                out.widgets.append(state)
        for wid in triggers:
            out.widgets.append(WidgetState(id=wid, trigger_value=True))
        return out

    def keep_only(self, active):
        """After a run: forget the widgets no longer drawn (``removeInactive``)."""
        self.main = {k: v for k, v in self.main.items() if k in active}
        for form_id in list(self.forms):
            self.forms[form_id] = {k: v for k, v in self.forms[form_id].items() if k in active}
