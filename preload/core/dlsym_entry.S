/*
 * The exported dlsym.  glibc resolves dlsym(RTLD_NEXT, name) relative to the
 * caller's return address, so a C wrapper that forwards the call would make
 * "next" mean "next after peerwatch".  For RTLD_NEXT this stub therefore
 * jumps to glibc's dlsym with the application's return address still on the
 * stack; every other handle goes to pw_dlsym_impl in C.
 */
#if defined(__x86_64__)
	.text
	.globl dlsym
	.type dlsym, @function
dlsym:
	.cfi_startproc
	cmpq $-1, %rdi
	jne 1f
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	call pw_real_dlsym_fn
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	jmp *%rax
1:
	jmp pw_dlsym_impl
	.cfi_endproc
	.size dlsym, .-dlsym
#elif defined(__aarch64__)
	.text
	.globl dlsym
	.type dlsym, %function
dlsym:
	.cfi_startproc
	cmn x0, #1
	b.ne 1f
	stp x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov x29, sp
	stp x0, x1, [sp, #16]
	bl pw_real_dlsym_fn
	mov x16, x0
	ldp x0, x1, [sp, #16]
	ldp x29, x30, [sp], #32
	.cfi_def_cfa_offset 0
	br x16
1:
	b pw_dlsym_impl
	.cfi_endproc
	.size dlsym, .-dlsym
#else
#error "dlsym_entry.S: add a stub for this architecture (see the x86-64 one)"
#endif
	.section .note.GNU-stack, "", %progbits
