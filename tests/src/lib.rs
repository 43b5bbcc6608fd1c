//! Integration tests live in `tests/`; UI (compile-fail) tests in `ui/`.
