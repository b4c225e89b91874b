// The next CMD_MEM word a descriptor fetch reads (docs/timing.md "Fetched words"; the TLM and the
// compiler's TXN use the same rule, common/txn read_words): the port reads only the words the
// device uses, one a cycle, so a fetch takes as many cycles as its descriptor has such words.
// Datapath queues: header words 0-1; each present walk's word 0, the sizes and strides of its
// ndims dimensions (dimension 0 always), pad_value and its nguards guards (and so for the seg
// sections the present feeders' segs name, IFD0's first); the main unit's fields (has_main); the DPU
// section's fields and every word from the program to header.words (has_dpu). LoadIMC and
// barrier: the words that hold fields. The rule never looks at the magic.
// The caller gives what it knows when it issues word idx_i: the header and each walk's word 0 as
// far as they arrived. A section's word 0 decides nothing about the word after it (a walk's word
// 1, d0/d1 sizes, is always read), and every present section's word 0 is read, so the port picks
// the next word without waiting for the one it is reading.
module ax_fetch_next
  import axcore_pkg::*;
#(
  localparam int unsigned DpWords = DATAPATH_DESC_PROGRAM_WORD
) (
  input  logic        active_i,   // the fetch reads a word this cycle (else next_o = total_i)
  input  logic [1:0]  queue_i,
  input  logic [15:0] idx_i,      // the word read this cycle (relative to the descriptor)
  input  logic [15:0] total_i,    // the descriptor's length (datapath: header.words)
  input  logic [31:0] hdr_w0_i,   // word 0 of the header
  input  logic [31:0] ifd0_w0_i,  // word 0 of each walk
  input  logic [31:0] ifd1_w0_i,
  input  logic [31:0] odr_w0_i,
  input  logic [IFD_SEG_WALKS-1:0][31:0] seg_w0_i,  // word 0 of each seg section
  output logic [15:0] next_o      // total_i when no word is left
);
  // Per word of a section (its struct zero-extended to the widest, a walk): the word holds one of
  // the fields set in a mask value of the struct. Each *_reads below sets the fields it reads.
  localparam int unsigned MaskBits = WALK_WORDS * 32;
  function automatic logic [WALK_WORDS-1:0] nonzero_words(logic [WALK_WORDS-1:0][31:0] a);
    logic [WALK_WORDS-1:0] r;
    for (int unsigned k = 0; k < WALK_WORDS; k++) r[k] = |a[k];
    return r;
  endfunction

  function automatic logic [WALK_WORDS-1:0] walk_reads(logic [2:0] nd, logic [1:0] ng);
    walk_t m;
    m = '0;
    {m.base_row, m.pad_value} = '1;
    {m.d0_size, m.d0_stride} = '1;   // dimension 0 whatever ndims says (it is decided a word later)
    if (nd > 3'd1) {m.d1_size, m.d1_stride} = '1;
    if (nd > 3'd2) {m.d2_size, m.d2_stride} = '1;
    if (nd > 3'd3) {m.d3_size, m.d3_stride} = '1;
    if (nd > 3'd4) {m.d4_size, m.d4_stride} = '1;
    if (nd > 3'd5) {m.d5_size, m.d5_stride} = '1;
    if (ng > 2'd0)
      {m.g0_offset, m.g0_extent, m.g0_coef0, m.g0_coef1, m.g0_coef2, m.g0_coef3, m.g0_coef4, m.g0_coef5} = '1;
    if (ng > 2'd1)
      {m.g1_offset, m.g1_extent, m.g1_coef0, m.g1_coef1, m.g1_coef2, m.g1_coef3, m.g1_coef4, m.g1_coef5} = '1;
    if (ng > 2'd2)
      {m.g2_offset, m.g2_extent, m.g2_coef0, m.g2_coef1, m.g2_coef2, m.g2_coef3, m.g2_coef4, m.g2_coef5} = '1;
    return nonzero_words(m);
  endfunction

  function automatic logic [DP_HEADER_WORDS-1:0] header_reads();
    dp_header_t m;
    m = '0;
    {m.magic, m.has_ifd0, m.has_ifd1, m.has_main, m.has_dpu, m.has_odr, m.words, m.id} = '1;
    m.kind = dp_kind_e'('1);
    return DP_HEADER_WORDS'(nonzero_words(MaskBits'(m)));
  endfunction

  // the MVM or the DWPU section (the same words)
  function automatic logic [MVM_DESC_WORDS-1:0] main_reads();
    mvm_desc_t  m;
    dwpu_desc_t d;
    m = '0;
    {m.k_blocks, m.matrix_id, m.ndims, m.tile_base, m.k_stride, m.o0_size, m.o1_size, m.o2_size, m.o3_size,
     m.o0_tstride, m.o1_tstride, m.o2_tstride, m.o3_tstride} = '1;
    d = '0;
    {d.taps, d.ndims, d.divisor, d.weight_base_row, d.weight_count, d.o0_size, d.o1_size, d.o2_size, d.o3_size,
     d.o0_wstride, d.o1_wstride, d.o2_wstride, d.o3_wstride} = '1;
    d.op = dwpu_op_e'('1);
    return MVM_DESC_WORDS'(nonzero_words(MaskBits'(m) | MaskBits'(d)));
  endfunction

  function automatic logic [DPU_DESC_WORDS-1:0] dpu_reads();
    dpu_desc_t m;
    m = '0;
    {m.init_len, m.body_len, m.iterations} = '1;
    m.in0_dtype = dtype_e'('1);
    m.in1_dtype = dtype_e'('1);
    m.out_dtype = dtype_e'('1);
    return DPU_DESC_WORDS'(nonzero_words(MaskBits'(m)));
  endfunction

  function automatic logic [LOADIMC_DESC_WORDS-1:0] loadimc_reads();
    loadimc_desc_t m;
    m = '0;
    {m.magic, m.matrix_id, m.d0_size, m.d1_size, m.base_row, m.row_stride, m.d0_astride, m.d1_astride,
     m.tile_base, m.d0_tstride, m.d1_tstride} = '1;
    return LOADIMC_DESC_WORDS'(nonzero_words(MaskBits'(m)));
  endfunction

  function automatic logic [BARRIER_DESC_WORDS-1:0] barrier_reads();
    barrier_desc_t m;
    m = '0;
    {m.magic, m.barrier_id, m.core_mask} = '1;
    return BARRIER_DESC_WORDS'(nonzero_words(MaskBits'(m)));
  endfunction

  // Only while a fetch reads (active_i): the simulation evaluates none of the masks otherwise.
  logic [DpWords-1:0] dp_rd;   // the fixed part's words a datapath fetch reads (then the program)
  logic [LOADIMC_DESC_WORDS-1:0] li_rd;
  logic [BARRIER_DESC_WORDS-1:0] bar_rd;
  logic [15:0] n;
  always_comb begin
    dp_rd  = '0;
    li_rd  = '0;
    bar_rd = '0;
    n      = total_i;
    if (active_i) begin  // the wide views only here: the simulation builds them only in a fetch
      // verilator lint_off UNUSEDSIGNAL
      dp_header_t hdr;   // word 0 of each (the rest zero)
      walk_t      ifd0, ifd1, odr, seg;
      logic [2:0] segs;  // seg sections the feeders name (IFD0's first)
      // verilator lint_on UNUSEDSIGNAL
      hdr    = dp_header_t'({{(32 * (DP_HEADER_WORDS - 1)){1'b0}}, hdr_w0_i});
      ifd0   = walk_t'({{(32 * (WALK_WORDS - 1)){1'b0}}, ifd0_w0_i});
      ifd1   = walk_t'({{(32 * (WALK_WORDS - 1)){1'b0}}, ifd1_w0_i});
      odr    = walk_t'({{(32 * (WALK_WORDS - 1)){1'b0}}, odr_w0_i});
      segs   = (hdr.has_ifd0 ? 3'(ifd0.segs) : 3'd0) + (hdr.has_ifd1 ? 3'(ifd1.segs) : 3'd0);
      li_rd  = loadimc_reads();
      bar_rd = barrier_reads();
      unique case (queue_i)
        QUEUE_LOADIMC: for (int k = LOADIMC_DESC_WORDS - 1; k >= 0; k--) if (li_rd[k] && 16'(k) > idx_i) n = 16'(k);
        QUEUE_CTRL:    for (int k = BARRIER_DESC_WORDS - 1; k >= 0; k--) if (bar_rd[k] && 16'(k) > idx_i) n = 16'(k);
        default: begin
          if (32'(idx_i) + 1 >= DpWords) n = hdr.has_dpu ? idx_i + 16'd1 : total_i;
          else begin
            dp_rd[DATAPATH_DESC_HEADER_WORD +: DP_HEADER_WORDS] = header_reads();
            if (hdr.has_ifd0) dp_rd[DATAPATH_DESC_IFD0_WORD +: WALK_WORDS] = walk_reads(ifd0.ndims, ifd0.nguards);
            if (hdr.has_ifd1) dp_rd[DATAPATH_DESC_IFD1_WORD +: WALK_WORDS] = walk_reads(ifd1.ndims, ifd1.nguards);
            if (hdr.has_main) dp_rd[DATAPATH_DESC_MVM_WORD +: MVM_DESC_WORDS] = main_reads();
            if (hdr.has_dpu)  dp_rd[DATAPATH_DESC_DPU_WORD +: DPU_DESC_WORDS] = dpu_reads();
            if (hdr.has_odr)  dp_rd[DATAPATH_DESC_ODR_WORD +: WALK_WORDS] = walk_reads(odr.ndims, odr.nguards);
            for (int unsigned k = 0; k < IFD_SEG_WALKS; k++) begin
              seg = walk_t'({{(32 * (WALK_WORDS - 1)){1'b0}}, seg_w0_i[k]});
              if (k < 32'(segs))
                dp_rd[DATAPATH_DESC_SEG0_WORD + k * WALK_WORDS +: WALK_WORDS] = walk_reads(seg.ndims, seg.nguards);
            end
            n = hdr.has_dpu ? 16'(DpWords) : total_i;
            for (int k = DpWords - 1; k >= 0; k--) if (dp_rd[k] && 16'(k) > idx_i) n = 16'(k);
          end
        end
      endcase
    end
    next_o = (n < total_i) ? n : total_i;
  end
endmodule
