//! Integration tests live in `tests/`; UI (compile-fail) tests in `ui/`.
//!
//! The README's example is compiled and run as a doctest of this crate, so
//! the first code a newcomer reads cannot rot.
#![doc = include_str!("../../README.md")]
