//! Values, the static world of a program (threads, nodes, locations) and events
//! (LOCO paper §3.1: labels `⟨m, ṽ, v'⟩` and events `⟨t, ι, label⟩`).

use std::fmt;

use crate::stamp::NodeId;

pub type ThreadId = usize;
pub type LocId = usize;
pub type LibId = usize;
pub type MethodId = usize;

/// Values manipulated by programs and returned by method calls.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Value {
    Unit,
    /// ⊥
    Bot,
    /// ⊤, the undefined value of a conflicting non-atomic access (coreRMA §5.2-5.3,
    /// rule C): any value may be read.
    Top,
    Bool(bool),
    Int(i64),
    Tuple(Vec<Value>),
    /// A location, as an argument.
    Loc(LocId),
    /// A node, as an argument (e.g. `Poll(n)`).
    Node(NodeId),
    /// A set of nodes (sorted, no duplicates).
    Nodes(Vec<NodeId>),
    /// A work identifier; identifiers of distinct names are distinct.
    Wid(u32),
    /// A named object of a library (barrier, ring, …).
    Obj(u32),
    /// A thread, as a value of implementation code (`self`, `participants(z)`).
    Thread(u32),
    /// A finite set (sorted, no duplicates) of other values than nodes.
    Set(Vec<Value>),
    /// In an unfolding: the value returned by a call is any one of these (runs
    /// that differ only there were merged, see `Prog::Spin`).
    OneOf(Vec<Value>),
}

impl Value {
    /// Whether `v` is this value, or one of its alternatives.
    pub fn admits(&self, v: &Value) -> bool {
        match self {
            Value::OneOf(vs) => vs.contains(v),
            _ => self == v,
        }
    }
}

impl Value {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    pub fn as_loc(&self) -> Option<LocId> {
        match self {
            Value::Loc(l) => Some(*l),
            _ => None,
        }
    }
    pub fn as_node(&self) -> Option<NodeId> {
        match self {
            Value::Node(n) => Some(*n),
            Value::Int(i) if *i > 0 => Some(*i as NodeId),
            _ => None,
        }
    }
    pub fn as_nodes(&self) -> Option<&[NodeId]> {
        match self {
            Value::Nodes(n) => Some(n),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unit => write!(f, "()"),
            Value::Bot => write!(f, "bot"),
            Value::Top => write!(f, "top"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Tuple(vs) => {
                write!(f, "[")?;
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            Value::Loc(l) => write!(f, "loc#{l}"),
            Value::Node(n) => write!(f, "{n}"),
            Value::Nodes(ns) => {
                write!(f, "{{")?;
                for (i, n) in ns.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{n}")?;
                }
                write!(f, "}}")
            }
            Value::Wid(w) => write!(f, "wid#{w}"),
            Value::Obj(o) => write!(f, "obj#{o}"),
            Value::Thread(t) => write!(f, "thread#{t}"),
            Value::OneOf(vs) => {
                write!(f, "one of ")?;
                write!(f, "{}", Value::Set(vs.clone()))
            }
            Value::Set(vs) => {
                write!(f, "{{")?;
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "}}")
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThreadInfo {
    pub name: String,
    pub node: NodeId,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LocInfo {
    pub name: String,
    /// The node whose memory holds the location; `None` for a replicated
    /// location (one copy per node).
    pub home: Option<NodeId>,
    pub init: Value,
    /// Tuple size, for locations holding K-tuples.
    pub size: Option<usize>,
    /// Implicit location standing for a literal source argument (written by nobody).
    pub implicit: bool,
}

/// A named object of a library: a barrier with its participating threads b(z), or
/// a ring with its writer wthd(q), readers rthd(q) and capacity.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjInfo {
    pub name: String,
    /// Participants (barrier) or readers (ring).
    pub threads: Vec<ThreadId>,
    /// The writer thread of a ring.
    pub writer: Option<ThreadId>,
    /// Ring capacity S.
    pub size: Option<usize>,
}

/// The static part of a program: its threads, nodes and locations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct World {
    pub threads: Vec<ThreadInfo>,
    pub locs: Vec<LocInfo>,
    /// Every node of the program, sorted.
    pub nodes: Vec<NodeId>,
    /// Names of work identifiers (index = `Value::Wid`).
    pub wids: Vec<String>,
    /// Library objects such as barriers and rings (index = `Value::Obj`).
    pub objs: Vec<ObjInfo>,
}

impl World {
    pub fn loc_node(&self, l: LocId) -> Option<NodeId> {
        self.locs[l].home
    }
    pub fn thread_node(&self, t: ThreadId) -> NodeId {
        self.threads[t].node
    }
    pub fn loc_name(&self, l: LocId) -> &str {
        &self.locs[l].name
    }
    /// A value with locations, work identifiers and objects shown by name.
    pub fn show(&self, v: &Value) -> String {
        match v {
            Value::Loc(l) => self.locs.get(*l).map(|i| i.name.clone()).unwrap_or_else(|| v.to_string()),
            Value::Wid(w) => self.wids.get(*w as usize).cloned().unwrap_or_else(|| v.to_string()),
            Value::Obj(o) => self.objs.get(*o as usize).map(|o| o.name.clone()).unwrap_or_else(|| v.to_string()),
            Value::Thread(t) => self.threads.get(*t as usize).map(|t| t.name.clone()).unwrap_or_else(|| v.to_string()),
            Value::Set(vs) => format!("{{{}}}", vs.iter().map(|v| self.show(v)).collect::<Vec<_>>().join(", ")),
            Value::OneOf(vs) => {
                format!("one of {{{}}}", vs.iter().map(|v| self.show(v)).collect::<Vec<_>>().join(", "))
            }
            Value::Tuple(vs) => format!("[{}]", vs.iter().map(|v| self.show(v)).collect::<Vec<_>>().join(", ")),
            _ => v.to_string(),
        }
    }
}

/// A call's arguments, shared (an unfolding copies its calls at every branch, and
/// each search makes events of them).
pub type Args = std::sync::Arc<[Value]>;

/// An event `⟨t, ι, ⟨m, ṽ, v'⟩⟩`: thread `t`, its position in the thread's
/// program order (standing for the identifier ι), the library and method called,
/// the arguments and the returned value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub thread: ThreadId,
    pub index: usize,
    pub lib: LibId,
    pub method: MethodId,
    pub args: Args,
    pub ret: Value,
    /// The abstraction f (LOCO Def. 3.11): the index of the abstract call of this
    /// thread that this event implements, when the program is an implementation.
    pub origin: Option<usize>,
}
