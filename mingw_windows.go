//go:build windows && cgo

package main

/*
#include <stdlib.h>

// DuckDB's prebuilt Windows library (duckdb-go-bindings lib/windows-amd64)
// was compiled by a MinGW whose C++ library is the UCRT flavour, where
// std::mbstate_t is _Mbstatet; Debian's mingw-w64 (the cross-compiler
// scripts/package-windows.sh uses) is the msvcrt flavour, whose
// basic_streambuf<char>::seekpos takes fpos<int>. The library's one
// reference to the UCRT one is in the vtable of an HTTP data sink's stream
// buffer, which Loupe never seeks (it has no HTTP file system). This
// definition lets the binary link; were it ever called, it would stop the
// program rather than seek wrongly.
void loupe_mingw_seekpos(void) __asm__("_ZNSt15basic_streambufIcSt11char_traitsIcEE7seekposESt4fposI9_MbstatetESt13_Ios_Openmode");
void loupe_mingw_seekpos(void) { abort(); }
*/
import "C"
