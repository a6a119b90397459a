//! Copy newtypes over `u32` that index the arenas of a grammar and its graphs.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }

            #[inline]
            pub fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).expect(concat!(stringify!($name), " overflow")))
            }
        }
    };
}

id!(
    /// A node of a host graph. Stable for the life of the node; never reused within one state.
    NodeId
);
id!(
    /// A declared node type.
    NodeTypeId
);
id!(
    /// A declared edge label.
    LabelId
);
id!(
    /// An attribute's position in its node type's attribute list (inherited attributes first).
    AttrId
);
id!(
    /// A pattern variable: a node of a rule's left side, of one of its NACs, or one it creates.
    VarId
);
