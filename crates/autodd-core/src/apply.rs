//! Applying a chosen set of sites to a copy of the current best. Each outermost
//! rewrite applies once; sites nested inside a replaced or removed node go with it.

use crate::hash::{FastMap, FastSet};
use crate::parse::ast::{self, Expr, Stmt};
use crate::rewrites::calls::{
    forward_into_def, forward_names, forward_names_in, forwardable, inlinable, inlinable_assign,
    inline_calls, inline_returns, remove_call_args, returning_def, ParamTarget,
};
use crate::rewrites::{
    expressions, functions, lists, make, properties, statements, strings, Rewrite, Shape,
};
use crate::sites::{Site, SiteMap};
use crate::walk::{self, ListKind, VisitorMut};

/// Applies `chosen` (sites of `map`, which was computed on a tree equal to `body`).
/// Where two chosen sites share a node, the earlier one in `chosen` wins.
pub fn apply_sites(body: &mut Vec<Stmt>, map: &SiteMap, chosen: &[Site]) {
    let mut applier = Applier::new(map, chosen);
    applier.body(body);
    // First, so that what the other passes change reaches the values put in.
    if !applier.accessors.is_empty() {
        properties::inline_accessors(body, &applier.accessors);
    }
    let removed = applier.call_args;
    if !removed.is_empty() {
        remove_call_args(body, &removed);
    }
    let mut inlines = applier.inlines;
    if !inlines.is_empty() {
        inline_calls(body, &mut inlines);
    }
    // Forwards first, into the removed `def`s' values too (but not over their own
    // parameters), then the calls of those `def`s, also where a forward put one:
    // `cfg = make(Cfg)` inlined with `make` and `Cfg` removed is one valid candidate.
    let mut returns = applier.returns;
    let forwards = applier.forwards;
    if !forwards.is_empty() {
        for (_, def) in returns.iter_mut() {
            forward_into_def(def, &forwards);
        }
        forward_names(body, &forwards);
    }
    if !returns.is_empty() {
        inline_returns(body, &returns);
    }
}

/// Applies `chosen` to copies of some top-level statements of the tree `map` was
/// computed on, each on its own: `statements` holds, for each, the node id of the
/// statement and a body holding just that statement, rewritten in place (it may end up
/// with none or several). Every site of `chosen` must lie in one of them, and none may
/// reach beyond its own statement (see [`Rewrite::reaches_other_statements`]).
pub fn apply_sites_to_statements(
    statements: &mut [(u32, Vec<Stmt>)],
    map: &SiteMap,
    chosen: &[Site],
) {
    let mut applier = Applier::new(map, chosen);
    for (id, body) in statements.iter_mut() {
        applier.next = *id;
        applier.body(body);
    }
    debug_assert!(
        applier.call_args.is_empty()
            && applier.inlines.is_empty()
            && applier.returns.is_empty()
            && applier.forwards.is_empty()
            && applier.accessors.is_empty(),
        "a rewrite that reaches other statements was applied to one statement"
    );
}

/// Whether `rewrite` removes an item from the list holding it.
fn removes_item(rewrite: Option<Rewrite>) -> bool {
    matches!(
        rewrite,
        Some(Rewrite::GeneralExprRemover | Rewrite::LongListRemover)
    )
}

struct Applier<'a> {
    ends: &'a [u32],
    selected: Vec<Option<Rewrite>>,
    next: u32,
    map: &'a SiteMap,
    /// Arguments to remove from calls once the tree is done (`param-with-args-remover`).
    call_args: Vec<ParamTarget>,
    /// Bodies of removed `def`s, for their call statements (`def-to-body`).
    inlines: Vec<(String, ast::StmtFunctionDef)>,
    /// Removed `def`s that return one value, for their one call (`def-to-expr`).
    returns: Vec<(String, Stmt)>,
    /// Removed one-line methods, for the attributes and calls that read them
    /// (`property-inline`, `method-inline`).
    accessors: Vec<(String, Stmt)>,
    /// Removed classes and their bases, for the names that read them (`class-to-base`),
    /// and removed module-level assignments and their values (`assign-inline`).
    forwards: Vec<(String, Expr)>,
    /// The same for the assignments of each `def` being visited, innermost last: a
    /// local's read is in its own function.
    local_forwards: Vec<Vec<(String, Expr)>>,
    /// For each compound statement a chosen `hoist-stmt` replaces, the statement that
    /// replaces it (the first chosen), and that statement once visited.
    hoists: FastMap<u32, u32>,
    hoisted: FastMap<u32, Stmt>,
    /// What chosen `remove-with-uses` sites remove: their statements and their uses
    /// (statements, display items, dict entries).
    removed: FastSet<u32>,
}

impl<'a> Applier<'a> {
    fn new(map: &'a SiteMap, chosen: &[Site]) -> Self {
        let mut selected = vec![None; map.ends.len()];
        let mut hoists = FastMap::default();
        let mut removed = FastSet::default();
        for site in chosen {
            if site.rewrite == Rewrite::RemoveWithUses {
                removed.insert(site.node);
                removed.extend(map.uses.get(&site.node).into_iter().flatten());
            }
            let slot = &mut selected[site.node as usize];
            if slot.is_none() {
                *slot = Some(site.rewrite);
                if site.rewrite == Rewrite::HoistStmt {
                    if let Some(&target) = map.hoist_targets.get(&site.node) {
                        hoists.entry(target).or_insert(site.node);
                    }
                }
            }
        }
        Applier {
            ends: &map.ends,
            selected,
            next: 0,
            map,
            call_args: Vec::new(),
            inlines: Vec::new(),
            returns: Vec::new(),
            accessors: Vec::new(),
            forwards: Vec::new(),
            local_forwards: Vec::new(),
            hoists,
            hoisted: FastMap::default(),
            removed,
        }
    }

    /// For an assignment `unpack-pair-remover` has sites in (`id` is its node), which
    /// of its targets were chosen: the tuple target is its first child, and its
    /// items follow.
    fn chosen_pairs(&self, id: u32, stmt: &Stmt) -> Vec<bool> {
        let Some(targets) = statements::unpackable_pairs(stmt) else {
            return Vec::new();
        };
        let mut item = id + 2;
        let mut chosen = Vec::with_capacity(targets.len());
        for _ in targets {
            chosen.push(self.selected(item) == Some(Rewrite::UnpackPairRemover));
            item = self.ends.get(item as usize).copied().unwrap_or(item + 1);
        }
        chosen
    }

    fn selected(&self, id: u32) -> Option<Rewrite> {
        self.selected.get(id as usize).copied().flatten()
    }

    /// Which of the next `count` nodes (the parts of a string, see `strings.rs`) have
    /// `rewrite` selected; moves past them.
    fn selected_parts(&mut self, count: usize, rewrite: Rewrite) -> Vec<bool> {
        let drop = (0..count as u32)
            .map(|k| self.selected(self.next + k) == Some(rewrite))
            .collect();
        self.next += count as u32;
        drop
    }

    /// Passes over the subtree of node `id` without visiting it.
    fn skip(&mut self, id: u32) {
        self.next = self.ends.get(id as usize).copied().unwrap_or(self.next + 1);
    }

    /// Whether the next node is removed by `rewrite`; if so, skips it.
    fn removes_next(&mut self, rewrite: Rewrite) -> bool {
        let id = self.next;
        if self.selected(id) == Some(rewrite) {
            self.skip(id);
            true
        } else {
            false
        }
    }

    fn params(&mut self, params: &mut Vec<ast::ArgWithDefault>) {
        let old = std::mem::take(params);
        for mut p in old {
            let id = self.next;
            if self.removes_next(Rewrite::FuncArgRemover) {
                continue;
            }
            if self.removes_next(Rewrite::ParamWithArgsRemover) {
                if let Some(target) = self.map.param_targets.get(&id) {
                    self.call_args.push(target.clone());
                }
                continue;
            }
            self.param(&mut p.def, p.default.as_deref_mut());
            params.push(p);
        }
    }

    fn star_param(&mut self, arg: &mut Option<Box<ast::Arg>>) {
        if arg.is_some() {
            if self.removes_next(Rewrite::FuncArgRemover) {
                *arg = None;
            } else if let Some(a) = arg.as_deref_mut() {
                self.param(a, None);
            }
        }
    }
}

impl VisitorMut for Applier<'_> {
    fn body(&mut self, body: &mut Vec<Stmt>) {
        let old = std::mem::take(body);
        for mut stmt in old {
            let id = self.next;
            if self.removed.contains(&id) {
                self.skip(id);
                body.push(make::pass());
                continue;
            }
            match self.selected(id) {
                Some(Rewrite::DefToBody) => {
                    self.skip(id);
                    if let (Some((name, _)), Stmt::FunctionDef(def)) = (inlinable(&stmt), &stmt) {
                        self.inlines.push((name.to_string(), def.clone()));
                    }
                    body.push(make::pass());
                }
                Some(Rewrite::DefToExpr) => {
                    self.skip(id);
                    if let Some((name, _, _)) = returning_def(&stmt) {
                        self.returns.push((name.to_string(), stmt));
                    }
                    body.push(make::pass());
                }
                Some(Rewrite::AssignInline | Rewrite::ClassToBase) => {
                    // `name = value` or `class name(base): pass`: reads of `name` get
                    // the value or the base.
                    self.skip(id);
                    if let Some((name, value)) = inlinable_assign(&stmt) {
                        let local = self.map.local_inlines.contains(&id);
                        let to = match self.local_forwards.last_mut() {
                            Some(scope) if local => scope,
                            _ => &mut self.forwards,
                        };
                        to.push((name.to_string(), value.clone()));
                    } else if let Some((name, base)) = forwardable(&stmt) {
                        self.forwards.push((name.to_string(), base.clone()));
                    }
                    body.push(make::pass());
                }
                Some(Rewrite::PropertyInline | Rewrite::MethodInline) => {
                    self.skip(id);
                    if let Some(name) = properties::accessor(&stmt).map(|a| a.name.to_string()) {
                        self.accessors.push((name, stmt));
                    }
                    body.push(make::pass());
                }
                Some(Rewrite::FieldWithArgsRemover) => {
                    // The field goes now, the arguments once the tree is done.
                    self.skip(id);
                    if let Some(target) = self.map.param_targets.get(&id) {
                        self.call_args.push(target.clone());
                    }
                    body.push(make::pass());
                }
                Some(r) if r.shape() == Shape::ReplaceStmt => {
                    self.skip(id);
                    body.extend(statements::replace(r, stmt));
                }
                _ => {
                    self.stmt(&mut stmt);
                    // A `hoist-stmt` chosen inside: the statement it picked instead.
                    match self
                        .hoists
                        .contains_key(&id)
                        .then(|| self.hoisted.remove(&id))
                    {
                        Some(Some(inner)) => body.push(inner),
                        _ => body.push(stmt),
                    }
                }
            }
        }
    }

    fn stmt(&mut self, stmt: &mut Stmt) {
        let id = self.next;
        self.next += 1;
        let def = matches!(stmt, Stmt::FunctionDef(_) | Stmt::AsyncFunctionDef(_));
        if def {
            self.local_forwards.push(Vec::new());
        }
        let pairs = self.chosen_pairs(id, stmt);
        walk::walk_stmt(self, stmt);
        if pairs.contains(&true) {
            statements::remove_pairs(stmt, &pairs);
        }
        if def {
            let forwards = self.local_forwards.pop().unwrap_or_default();
            if !forwards.is_empty() {
                forward_names_in(stmt, &forwards);
            }
        }
        // Edits run after the children, so the ids the children were counted with
        // still match the tree the sites were found on.
        match self.selected(id) {
            Some(Rewrite::WithBind0) => statements::edit_with(stmt),
            Some(Rewrite::AttachFullFuncArgs) => functions::attach_full_args(stmt),
            Some(Rewrite::HoistStmt) => {
                let target = self.map.hoist_targets.get(&id).copied();
                if let Some(target) = target.filter(|t| self.hoists.get(t) == Some(&id)) {
                    self.hoisted.insert(target, stmt.clone());
                }
            }
            _ => {}
        }
    }

    fn expr(&mut self, expr: &mut Expr) {
        let id = self.next;
        match self.selected(id) {
            Some(r) if r.shape() == Shape::ReplaceExpr => {
                self.skip(id);
                let old = std::mem::replace(expr, make::int(0));
                *expr = expressions::replace(r, old);
            }
            _ => {
                self.next += 1;
                walk::walk_expr(self, expr);
                if let Expr::Constant(ast::ExprConstant { value, .. }) = expr {
                    // The string's parts, then its runs of characters, are its
                    // children (see `strings.rs`).
                    match value {
                        ast::Constant::Str(text) => {
                            let cuts = strings::parts(text);
                            let drop = self.selected_parts(cuts.len(), Rewrite::StrPartRemover);
                            let chars = strings::char_parts(text);
                            let drop_chars =
                                self.selected_parts(chars.len(), Rewrite::StrCharRemover);
                            if drop.contains(&true) || drop_chars.contains(&true) {
                                *text = strings::without_parts(
                                    text,
                                    (&cuts, &drop),
                                    (&chars, &drop_chars),
                                );
                            }
                        }
                        ast::Constant::Bytes(bytes) => {
                            let runs = strings::byte_parts(bytes);
                            let drop = self.selected_parts(runs.len(), Rewrite::StrCharRemover);
                            if drop.contains(&true) {
                                *bytes = strings::without_bytes(bytes, &runs, &drop);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    fn expr_list(&mut self, list: &mut Vec<Expr>, kind: ListKind) {
        // Which items go; a list that must keep `min` items keeps its first removed
        // ones back (`a and b` cannot lose both operands).
        let mut id = self.next;
        let mut remove = Vec::with_capacity(list.len());
        for _ in 0..list.len() {
            remove.push(removes_item(self.selected(id)) || self.removed.contains(&id));
            id = self.ends.get(id as usize).copied().unwrap_or(id + 1);
        }
        let min = lists::min_len(kind, false).unwrap_or(0);
        let mut kept = remove.iter().filter(|r| !**r).count();
        for r in remove.iter_mut() {
            if kept >= min {
                break;
            }
            if *r {
                *r = false;
                kept += 1;
            }
        }
        let old = std::mem::take(list);
        for (mut expr, removed) in old.into_iter().zip(remove) {
            let id = self.next;
            if removed {
                self.skip(id);
            } else {
                // A kept-back item was selected for removal: visit it without that.
                if removes_item(self.selected(id)) {
                    self.selected[id as usize] = None;
                }
                self.expr(&mut expr);
                list.push(expr);
            }
        }
    }

    fn dict(&mut self, keys: &mut Vec<Option<Expr>>, values: &mut Vec<Expr>) {
        let old_keys = std::mem::take(keys);
        let old_values = std::mem::take(values);
        for (key, mut value) in old_keys.into_iter().zip(old_values) {
            let first = self.next;
            if removes_item(self.selected(first)) || self.removed.contains(&first) {
                self.skip(first);
                if key.is_some() {
                    self.skip(self.next);
                }
                continue;
            }
            let key = key.map(|mut k| {
                self.expr(&mut k);
                k
            });
            keys.push(key);
            self.expr(&mut value);
            values.push(value);
        }
    }

    fn optional(&mut self, expr: &mut Option<Box<Expr>>, _removable: bool) {
        if expr.is_some() {
            if self.removes_next(Rewrite::OptionalExprRemover) {
                *expr = None;
            } else if let Some(e) = expr.as_deref_mut() {
                self.expr(e);
            }
        }
    }

    fn aliases(&mut self, aliases: &mut Vec<ast::Alias>) {
        let old = std::mem::take(aliases);
        let total = old.len();
        for (i, alias) in old.into_iter().enumerate() {
            // The last name stays when every one was selected: `import` needs a name.
            let last_chance = aliases.is_empty() && i + 1 == total;
            if !last_chance && self.removes_next(Rewrite::ImportNameRemover) {
                continue;
            }
            if last_chance && self.selected(self.next) == Some(Rewrite::ImportNameRemover) {
                self.skip(self.next);
            } else {
                self.next += 1;
            }
            aliases.push(alias);
        }
    }

    fn match_cases(&mut self, cases: &mut Vec<ast::MatchCase>) {
        let old = std::mem::take(cases);
        let total = old.len();
        for (i, mut case) in old.into_iter().enumerate() {
            let id = self.next;
            // The last arm stays when every one was selected: `match` needs a `case`.
            let last_chance = cases.is_empty() && i + 1 == total;
            if self.selected(id) == Some(Rewrite::CaseRemover) && !last_chance {
                self.skip(id);
                continue;
            }
            self.next += 1;
            walk::walk_case(self, &mut case);
            cases.push(case);
        }
    }

    fn keywords(&mut self, keywords: &mut Vec<ast::Keyword>) {
        let old = std::mem::take(keywords);
        for mut kw in old {
            if !self.removes_next(Rewrite::GeneralKeywordRemover) {
                self.keyword(&mut kw);
                keywords.push(kw);
            }
        }
    }

    fn keyword(&mut self, keyword: &mut ast::Keyword) {
        self.next += 1;
        self.expr(&mut keyword.value);
    }

    fn arguments(&mut self, args: &mut ast::Arguments) {
        self.params(&mut args.posonlyargs);
        self.params(&mut args.args);
        self.star_param(&mut args.vararg);
        self.params(&mut args.kwonlyargs);
        self.star_param(&mut args.kwarg);
    }

    fn param(&mut self, arg: &mut ast::Arg, default: Option<&mut Expr>) {
        self.next += 1;
        walk::walk_param(self, arg, default);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_module;
    use crate::rewrites::{Rewrite, RewriteSet};
    use crate::sites::find_sites;
    use crate::unparse::unparse_module;

    /// The program with every site of `rewrites` applied in one candidate.
    fn apply_all(source: &str, rewrites: &[Rewrite]) -> String {
        let mut body = parse_module(source).expect("parses");
        let map = find_sites(&body, RewriteSet::of(rewrites), false, &[]);
        let chosen = map.sites.clone();
        apply_sites(&mut body, &map, &chosen);
        crate::clean::clean_module(&mut body);
        unparse_module(&body)
    }

    #[test]
    fn inlines_and_forwards_applied_together_leave_no_removed_name() {
        let source = "class Base:\n    pass\nclass Cfg(Base):\n    pass\n\
                      def make(n):\n    return [n, Cfg]\n\
                      cfg = make(Cfg)\nprint(cfg)\n";
        let out = apply_all(
            source,
            &[
                Rewrite::DefToExpr,
                Rewrite::AssignInline,
                Rewrite::ClassToBase,
            ],
        );
        assert_eq!(out, "class Base:\n    pass\nprint([Base, Base])\n");
    }

    #[test]
    fn def_to_body_binds_parameters_as_a_call_does() {
        let source = "def f(a, b, c=3):\n    print(a, b, c)\nf(b, a, c=c)\n";
        let out = apply_all(source, &[Rewrite::DefToBody]);
        assert_eq!(out, "a, b = b, a\nprint(a, b, c)\n");
    }

    #[test]
    fn def_to_expr_leaves_values_whose_names_are_not_the_parameters() {
        for source in [
            "def f(x):\n    return [x * 2 for x in range(x)]\nprint(f(3))\n",
            "def f(x):\n    return lambda x: x + 1\nprint(f(3))\n",
            "def f(x):\n    return (yield x)\nprint(f(3))\n",
        ] {
            let body = parse_module(source).expect("parses");
            let map = find_sites(&body, RewriteSet::of(&[Rewrite::DefToExpr]), false, &[]);
            assert!(map.sites.is_empty(), "{source}");
        }
        let out = apply_all(
            "def area(w, h=1, /):\n    return w * h\nprint(area(n - 1))\n",
            &[Rewrite::DefToExpr],
        );
        assert_eq!(out, "print((n - 1) * 1)\n");
    }

    #[test]
    fn method_calls_bind_arguments_as_the_call_does() {
        let source = "class P:\n    def get(self, key, default=0):\n        return self.d.get(key, default)\n\
                      p = P()\nprint(p.get('a'), p.get(default=1, key='b'))\n";
        let out = apply_all(source, &[Rewrite::MethodInline]);
        assert_eq!(
            out,
            "class P:\n    pass\np = P()\nprint(p.d.get('a', 0), p.d.get('b', 1))\n"
        );
        // `P().get('c')` would build a `P` for each read of `self`: no site.
        let source = format!("{source}print(P().get('c'))\n");
        assert_eq!(apply_all(&source, &[Rewrite::MethodInline]), source);
    }

    #[test]
    fn a_global_assigned_in_a_function_is_forwarded_where_it_is_read() {
        let source = "def init():\n    global CFG\n    CFG = load()\ninit()\nrun(CFG)\n";
        let out = apply_all(source, &[Rewrite::AssignInline]);
        assert_eq!(out, "def init():\n    global CFG\ninit()\nrun(load())\n");
    }

    #[test]
    fn method_calls_python_would_refuse_stay() {
        let source = "class P:\n    def get(self, key, default=0):\n        return self.d.get(key, default)\n\
                      p = P()\nprint(p.get('a', key='b'), p.get('a', dflt=1), p.get('a', 1, 2))\n";
        let out = apply_all(source, &[Rewrite::MethodInline]);
        assert!(
            out.ends_with("print(p.get('a', key='b'), p.get('a', dflt=1), p.get('a', 1, 2))\n"),
            "{out}"
        );
    }

    #[test]
    fn unpack_pairs_go_in_pairs_or_not_at_all() {
        // Every pair chosen: one stays, as a plain assignment.
        let out = apply_all("a, b, c = x, y, z\n", &[Rewrite::UnpackPairRemover]);
        assert_eq!(out, "c = z\n");
        // With the value replaced in the same candidate, the targets stay whole.
        let out = apply_all(
            "a, b = x, y\n",
            &[Rewrite::UnpackPairRemover, Rewrite::AssignRhs1],
        );
        assert_eq!(out, "a, b = 1\n");
        // A local inlined in its own function only, whatever other functions call
        // their own `node`.
        let out = apply_all(
            "def parse():\n    node = expr()\n    return node\ndef term(node):\n    return node\n",
            &[Rewrite::AssignInline],
        );
        assert_eq!(
            out,
            "def parse():\n    return expr()\ndef term(node):\n    return node\n"
        );
    }
}
