//! The seed's tiled matrix-multiply tutorial, ported to MFMA fragments.
#![no_std]
