// barneshut_steps: the same accelerations of the same bodies as barneshut
// (one thread a walk over a tree built from Morton codes): the NESL
// program whose walks all advance together, one node a step, from a host
// recursion (barneshut_steps.nesl), measured against what an expert writes
#include "barneshut.cu"
