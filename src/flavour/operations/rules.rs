//! The table's own rules, checked when the crate compiles: a row that breaks one is an error
//! at compile time that names it (`evaluation panicked: hosts.get`) at the rule's line, so that
//! no test has to run to find a mistyped template. The rules: names are `resource.method` and
//! unique; a template starts with `/`, each placeholder is a whole segment named in
//! snake_case, and Atlas's template has the same placeholders in the same order; a row Atlas
//! has (it has versions) names its `operationId` in Atlas's specification, and only such a row;
//! no two rows have the same method and path.

use super::{METHODS, ROWS};

const _: () = check_rows();

/// A rule of the table: where the row `name` breaks it, compiling fails with the row's name
/// at this rule's line.
macro_rules! rule {
    ($holds:expr, $name:expr, $why:literal) => {
        if !$holds {
            panic!("{}", $name);
        }
    };
}

const fn check_rows() {
    let mut i = 0;
    while i < ROWS.len() {
        let (row, name) = (&ROWS[i], ROWS[i].name);
        rule!(
            is_name(name.as_bytes()),
            name,
            "a name is `resource.method`"
        );
        rule!(
            is_template(row.ops_manager_path.as_bytes()) && is_template(row.atlas_path.as_bytes()),
            name,
            "a template is /literal/{placeholder}/..., placeholders in snake_case"
        );
        rule!(
            same_params(row.ops_manager_path.as_bytes(), row.atlas_path.as_bytes()),
            name,
            "Atlas's template has Ops Manager's placeholders, in their order"
        );
        rule!(
            row.atlas_versions.is_empty() == row.atlas_operation_id.is_none(),
            name,
            "a row Atlas has names its operationId, and only such a row"
        );
        let mut j = 0;
        while j < i {
            let other = &ROWS[j];
            rule!(
                !eq(name.as_bytes(), other.name.as_bytes()),
                name,
                "names are unique"
            );
            rule!(
                !(eq(
                    row.ops_manager_path.as_bytes(),
                    other.ops_manager_path.as_bytes()
                ) && eq(METHODS[i].as_bytes(), METHODS[j].as_bytes())),
                name,
                "no two rows have the same method and path"
            );
            j += 1;
        }
        i += 1;
    }
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn is_lower(c: u8) -> bool {
    c.is_ascii_lowercase() || c == b'_'
}

const fn is_name(s: &[u8]) -> bool {
    let mut dots = 0;
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'.' {
            dots += 1;
            if i == 0 || i + 1 == s.len() {
                return false;
            }
        } else if !is_lower(s[i]) {
            return false;
        }
        i += 1;
    }
    dots == 1
}

const fn is_template(s: &[u8]) -> bool {
    if s.is_empty() || s[0] != b'/' {
        return false;
    }
    let mut i = 1;
    while i < s.len() {
        // One segment, from i to the next '/'.
        let start = i;
        while i < s.len() && s[i] != b'/' {
            i += 1;
        }
        if i == start {
            return false;
        }
        if s[start] == b'{' {
            if s[i - 1] != b'}' || i - start < 3 {
                return false;
            }
            let mut k = start + 1;
            while k < i - 1 {
                if !is_lower(s[k]) {
                    return false;
                }
                k += 1;
            }
        } else {
            let mut k = start;
            while k < i {
                if !s[k].is_ascii_alphanumeric() {
                    return false;
                }
                k += 1;
            }
        }
        i += 1;
    }
    true
}

/// Whether two templates have the same placeholders in the same order.
const fn same_params(a: &[u8], b: &[u8]) -> bool {
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && a[i] != b'{' {
            i += 1;
        }
        while j < b.len() && b[j] != b'{' {
            j += 1;
        }
        if i == a.len() || j == b.len() {
            return i == a.len() && j == b.len();
        }
        while i < a.len() && j < b.len() && a[i] != b'}' && a[i] == b[j] {
            i += 1;
            j += 1;
        }
        if i == a.len() || j == b.len() || a[i] != b'}' || b[j] != b'}' {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_rules_reject_what_they_must() {
        assert!(is_template(b"/groups/{group_id}/hosts"));
        assert!(!is_template(b"groups"));
        assert!(!is_template(b"/groups//hosts"));
        assert!(!is_template(b"/groups/{Group}"));
        assert!(!is_template(b"/groups/{}"));
        assert!(!is_template(b"/groups/a-b"));
        assert!(same_params(b"/a/{x}/b/{y}", b"/c/{x}/{y}/d"));
        assert!(!same_params(b"/a/{x}/{y}", b"/a/{y}/{x}"));
        assert!(!same_params(b"/a/{x}", b"/a/{x}/{y}"));
        assert!(is_name(b"hosts.get") && !is_name(b"hosts") && !is_name(b"a.b.c"));
        assert!(eq(b"GET", b"GET") && !eq(b"GET", b"PATCH"));
    }
}
