/* barneshut_steps: the same accelerations of the same bodies as
   barneshut (walks in parallel): the NESL program whose walks all
   advance together, one node a step, from a host recursion
   (barneshut_steps.nesl), measured against what an expert writes */
#include "barneshut.c"
