//! The libraries a run knows, as a value: the built-ins ([`crate::registry`])
//! and the libraries read from files (`--lib FILE`, the project file), each under
//! its name. Every analysis gets the catalogue it runs with; nothing is global, so
//! two checks with different catalogues can run side by side (tests do).

use std::sync::Arc;

use mowgli_core::{Library, StampOrder};
use mowgli_spec::{FileLibrary, Spec};

use crate::registry::{self, KNOWN};
use crate::LibError;

/// Builds a library under a stamp order (a catalogue entry's constructor).
pub type Factory = Arc<dyn Fn(&StampOrder) -> Result<Box<dyn Library>, LibError> + Send + Sync>;

/// The built-in libraries and the ones added to them, by name: an added library
/// replaces a built-in of the same name or adds a new name; a later addition of
/// the same name wins.
#[derive(Clone, Default)]
pub struct Catalogue {
    added: Vec<(String, Factory)>,
}

impl std::fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalogue").field("added", &self.added_names()).finish()
    }
}

impl Catalogue {
    /// The built-in libraries only.
    pub fn builtins() -> Self {
        Self::default()
    }

    /// Adds (or replaces) library `name`, built by `factory`.
    pub fn add(&mut self, name: &str, factory: Factory) {
        self.added.retain(|(n, _)| n != name);
        self.added.push((name.to_string(), factory));
    }

    /// Adds the library file `spec` under the name it declares.
    pub fn add_spec(&mut self, spec: &Spec) {
        self.add(&spec.name.clone(), spec_factory(spec));
    }

    /// This catalogue with library `name` built by `factory` (the others as they are).
    pub fn with(&self, name: &str, factory: Factory) -> Self {
        let mut c = self.clone();
        c.add(name, factory);
        c
    }

    /// This catalogue with the library file `spec` added under its name.
    pub fn with_spec(&self, spec: &Spec) -> Self {
        self.with(&spec.name, spec_factory(spec))
    }

    /// Library `name` built under `order`: the one added under that name if any,
    /// else the built-in.
    pub fn library(&self, name: &str, order: &StampOrder) -> Result<Box<dyn Library>, LibError> {
        match self.added.iter().rev().find(|(n, _)| n == name) {
            Some((_, f)) => f(order),
            None => registry::builtin(name, order).map_err(|e| match e {
                LibError::Unknown(n, _) => LibError::Unknown(n, self.known().join(", ")),
                e => e,
            }),
        }
    }

    /// The names added to the built-ins, in the order they were added.
    pub fn added_names(&self) -> Vec<String> {
        self.added.iter().map(|(n, _)| n.clone()).collect()
    }

    /// Whether `name` names a library of this catalogue (available or not).
    pub fn knows(&self, name: &str) -> bool {
        KNOWN.contains(&name) || self.added.iter().any(|(n, _)| n == name)
    }

    /// Every name of this catalogue: the built-ins', then the added ones.
    pub fn known(&self) -> Vec<String> {
        let mut names: Vec<String> = KNOWN.iter().map(|k| k.to_string()).collect();
        names.extend(self.added_names().into_iter().filter(|n| !KNOWN.contains(&n.as_str())));
        names
    }
}

impl FromIterator<(String, Factory)> for Catalogue {
    /// The built-ins with `entries` added in order.
    fn from_iter<I: IntoIterator<Item = (String, Factory)>>(entries: I) -> Self {
        let mut c = Catalogue::builtins();
        for (n, f) in entries {
            c.add(&n, f);
        }
        c
    }
}

/// A catalogue entry building a file library.
pub trait SpecFactory {
    fn factory(&self) -> Factory;
}

impl SpecFactory for Spec {
    fn factory(&self) -> Factory {
        spec_factory(self)
    }
}

/// A catalogue entry building the file library `spec`.
pub fn spec_factory(spec: &Spec) -> Factory {
    let spec = Arc::new(spec.clone());
    Arc::new(move |order: &StampOrder| {
        let l = FileLibrary::new(spec.clone(), order).map_err(LibError::Other)?;
        Ok(Box::new(l) as Box<dyn Library>)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two catalogues with different libraries under one name answer each with
    /// its own, on the same thread and at the same time.
    #[test]
    fn catalogues_are_values() {
        let order = crate::orders::default_order();
        let sv = registry::builtin_spec("sv").expect("sv is a built-in file").clone();
        let mut renamed = sv.clone();
        renamed.name = "mine".into();
        let with = Catalogue::builtins().with_spec(&renamed);
        let without = Catalogue::builtins();
        assert!(with.library("mine", &order).is_ok());
        assert!(matches!(without.library("mine", &order), Err(LibError::Unknown(..))));
        assert!(with.knows("mine") && !without.knows("mine"));
        assert!(with.known().iter().any(|n| n == "mine"));
    }
}
