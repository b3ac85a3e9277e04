//! The crate's two pieces of boilerplate, written once.

/// Builder setters: for each `name(field): Type`, with its doc comment, a
/// `pub fn name(mut self, value: Type) -> Self` that sets the field. The
/// options types (`Options`, `ToolOptions`, `DiffOptions`, `Dispatcher`)
/// are all built this way, so they read alike and cannot drift.
macro_rules! setters {
    ($($(#[$attr:meta])* $name:ident($field:ident): $ty:ty;)*) => {
        $(
            $(#[$attr])*
            pub fn $name(mut self, value: $ty) -> Self {
                self.$field = value;
                self
            }
        )*
    };
}

/// `Display` as the type's stable snake_case `name()`, the one spelling the
/// CLI's JSON, the Python binding and messages all use.
macro_rules! display_by_name {
    ($($ty:ty),*) => {
        $(
            impl std::fmt::Display for $ty {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(self.name())
                }
            }
        )*
    };
}
