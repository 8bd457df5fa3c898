# Turns a demangled symbol name (c++filt) into the name tools/musl/hot-functions.txt
# keeps: without the hash of a legacy Rust name and without the suffixes
# link-time optimization adds to local copies, and without the crate hashes
# (`std[e28293b1aa0f68bd]`) of a v0 Rust name. Used by hot-functions.py and link.sh.
s/::h[0-9a-f]\{16\}$//
s/\[[0-9a-f]\{1,16\}\]//g
s/ \[clone [^]]*\]//g
s/\.llvm\.[0-9]*$//
s/\.[0-9][0-9]*$//
