#include "textflag.h"

// The set is found by nibbles ("shufti"): a byte's low nibble picks a mask
// from the set's low table, its high nibble one from the high table, and
// the byte is in the set when the two share a bit (bit i for member i,
// set at the member's own nibbles, so that only the member has both).
//
// CLASSIFY sets Y6's bytes to zero where Y0's are not in the set.
#define CLASSIFY \
	VPSRLW $4, Y0, Y4 \
	VPAND Y3, Y4, Y4 \
	VPAND Y3, Y0, Y5 \
	VPSHUFB Y5, Y1, Y5 \
	VPSHUFB Y4, Y2, Y4 \
	VPAND Y4, Y5, Y6 \
	VPCMPEQB Y7, Y6, Y6 \
	VPMOVMSKB Y6, BX \
	NOTL BX

// func indexVector(p []byte, t *tables) int
// len(p) >= 32. The last vector is loaded so that it ends where p ends (it
// may overlap the one before it, which held no byte of the set).
TEXT ·indexVector(SB), NOSPLIT, $0-40
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), DX
	MOVQ t+24(FP), AX
	VMOVDQU 0(AX), Y1    // low-nibble table, in both lanes
	VMOVDQU 32(AX), Y2   // high-nibble table, in both lanes
	MOVL $0x0f0f0f0f, CX
	MOVL CX, X3
	VPBROADCASTD X3, Y3  // 0x0f in every byte
	VPXOR Y7, Y7, Y7     // zero
	MOVQ SI, DI          // DI: p's start
	LEAQ -32(SI)(DX*1), R8 // R8: the last vector's start

loop:
	CMPQ SI, R8
	JA   last
	VMOVDQU (SI), Y0
	CLASSIFY
	TESTL BX, BX
	JNZ  found
	ADDQ $32, SI
	JMP  loop

last:
	// SI is past R8: one vector more, ending at p's end, unless the
	// loop's last one already did.
	LEAQ 32(R8), R9
	CMPQ SI, R9
	JAE  none
	MOVQ R8, SI
	VMOVDQU (SI), Y0
	CLASSIFY
	TESTL BX, BX
	JNZ  found

none:
	VZEROUPPER
	MOVQ $-1, ret+32(FP)
	RET

found:
	BSFL BX, BX
	SUBQ DI, SI
	ADDQ BX, SI
	VZEROUPPER
	MOVQ SI, ret+32(FP)
	RET
