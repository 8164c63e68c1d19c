/* radixloop: the same sort of the same keys as radixsort (a parallel
   LSD radix sort, 8 bits a pass): NESL/GPU's way of writing a radix
   sort (radixloop.nesl) measured against what an expert writes */
#include "radixsort.c"
