//! List rewrites: `general-expr-remover` (an item of a call's arguments, a tuple,
//! list or set display, a decorator list or a class's bases) and
//! `general-keyword-remover`. `func-arg-remover` is a list removal too, matched on
//! every parameter.

use crate::walk::ListKind;

/// Whether `general-expr-remover` may remove an item of this list of `len` items.
pub fn removable(kind: ListKind, len: usize) -> bool {
    match kind {
        ListKind::CallArgs | ListKind::Elts | ListKind::Decorators | ListKind::Bases => true,
        // `{x}` without its only item would read as an empty dict.
        ListKind::SetElts => len > 1,
        ListKind::Other => false,
    }
}
