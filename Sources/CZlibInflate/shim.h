// zlib for GripImport's zip reader (inflate and crc32 only); not API.
#ifndef CZLIBINFLATE_SHIM_H
#define CZLIBINFLATE_SHIM_H

#include <zlib.h>

#endif
