//go:build !purego

#include "textflag.h"

// func ucsBlocksAVX2(p *byte, blocks int, prev *[32]byte, masks *uint64, t *avxTables) (bad bool)
//
// For each of blocks blocks of 32 bytes at p: the UTF-8 check of Keiser and
// Lemire ("Validating UTF-8 in less than one instruction per byte", 2021),
// three nibble lookups on each pair of bytes plus the 2-3 continuation test,
// with prev the 32 bytes before p (updated to the last block on return), and
// two 32-bit masks in masks[i]: the bytes that are not continuation bytes in
// the low half and the leads of 4 bytes (F0..FF) in the high half. bad is
// set when any block broke UTF-8 (a sequence cut short at the end is the
// caller's to find, with a block of zeros after it).
TEXT ·ucsBlocksAVX2(SB), NOSPLIT, $0-41
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ prev+16(FP), DX
	MOVQ masks+24(FP), DI
	MOVQ t+32(FP), BX
	VMOVDQU 0(BX), Y8    // byte1High
	VMOVDQU 32(BX), Y9   // byte1Low
	VMOVDQU 64(BX), Y10  // byte2High
	VMOVDQU 96(BX), Y11  // 0x0F
	VMOVDQU 128(BX), Y12 // 0xE0-0x80
	VMOVDQU 160(BX), Y13 // 0xF0-0x80
	VMOVDQU (DX), Y1
	VPXOR   Y15, Y15, Y15

loop:
	VMOVDQU    (SI), Y0
	VPERM2I128 $0x21, Y0, Y1, Y2 // the previous block's high lane, this block's low lane
	VPALIGNR   $15, Y2, Y0, Y3   // each byte's predecessor
	VPSRLW     $4, Y3, Y4
	VPAND      Y11, Y4, Y4
	VPSHUFB    Y4, Y8, Y4        // by the predecessor's high nibble
	VPAND      Y11, Y3, Y5
	VPSHUFB    Y5, Y9, Y5        // by the predecessor's low nibble
	VPAND      Y5, Y4, Y4
	VPSRLW     $4, Y0, Y6
	VPAND      Y11, Y6, Y6
	VPSHUFB    Y6, Y10, Y6       // by the byte's high nibble
	VPAND      Y6, Y4, Y4        // the errors of each pair; 0x80: two continuation bytes
	VPALIGNR   $14, Y2, Y0, Y5   // two bytes back
	VPALIGNR   $13, Y2, Y0, Y6   // three bytes back
	VPSUBUSB   Y12, Y5, Y5       // 0x80 and up after a lead of 3 or 4 bytes
	VPSUBUSB   Y13, Y6, Y6       // 0x80 and up after a lead of 4 bytes
	VPOR       Y6, Y5, Y5
	VPAND      192(BX), Y5, Y5   // a third or fourth byte is due here
	VPXOR      Y4, Y5, Y5        // due and not two continuation bytes, or the reverse
	VPOR       Y5, Y15, Y15
	VPCMPGTB   224(BX), Y0, Y6   // as signed bytes, above 0xBF: not a continuation byte
	VPMOVMSKB  Y6, AX
	VPCMPGTB   256(BX), Y0, Y7   // above 0xEF: ASCII or a lead of 4 bytes
	VPMOVMSKB  Y7, R8
	VPMOVMSKB  Y0, R9
	ANDL       R9, R8
	SHLQ       $32, R8
	ORQ        R8, AX
	MOVQ       AX, (DI)
	VMOVDQA    Y0, Y1
	ADDQ       $32, SI
	ADDQ       $8, DI
	DECQ       CX
	JNZ        loop

	VMOVDQU Y1, (DX)
	VPTEST  Y15, Y15
	SETNE   bad+40(FP)
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL   $0, CX
	XGETBV
	MOVL   AX, eax+0(FP)
	RET
