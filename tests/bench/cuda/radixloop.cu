// radixloop: the same sort of the same keys as radixsort (CUB's
// DeviceRadixSort::SortKeys): NESL/GPU's way of writing a radix sort
// (radixloop.nesl) measured against what an expert calls
#include "radixsort.cu"
