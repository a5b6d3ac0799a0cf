//! List rewrites: `general-expr-remover` (an item of a call's arguments, a tuple,
//! list or set display, a decorator list or a class's bases) and
//! `general-keyword-remover`. `func-arg-remover` is a list removal too, matched on
//! every parameter.

use crate::walk::ListKind;

/// How many items a list of this kind must keep to stay valid Python, or `None`
/// when `general-expr-remover` leaves the list alone.
pub fn min_len(kind: ListKind, reference_only: bool) -> Option<usize> {
    match kind {
        ListKind::CallArgs | ListKind::Elts | ListKind::Decorators | ListKind::Bases => Some(0),
        // `{x}` without its only item would read as an empty dict.
        ListKind::SetElts => Some(1),
        _ if reference_only => None,
        ListKind::ComprehensionIfs | ListKind::DictItems | ListKind::FStringParts => Some(0),
        ListKind::AssignTargets | ListKind::DeleteTargets => Some(1),
        ListKind::BoolOperands => Some(2),
        ListKind::Other => None,
    }
}

/// Whether `general-expr-remover` may remove an item of this list of `len` items.
pub fn removable(kind: ListKind, len: usize, reference_only: bool) -> bool {
    min_len(kind, reference_only).is_some_and(|min| len > min)
}
