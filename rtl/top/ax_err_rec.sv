// Error registers of one tile: ERROR_STATUS (sticky, write 1 to clear), ERROR_INFO and
// ERROR_ADDR (the first error since ERROR_STATUS was last all clear). Takes at most one error
// report per cycle (the tile merges its sources, lowest index first).
module ax_err_rec
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        err_valid_i,
  input  error_code_e err_code_i,
  input  logic        err_dir_i,
  input  logic [4:0]  err_channel_i,
  input  logic [15:0] err_detail_i,
  input  logic [31:0] err_addr_i,
  input  logic        clr_valid_i,   // a host write to ERROR_STATUS
  input  word_t       clr_mask_i,
  output word_t       status_o,
  output word_t       info_o,
  output word_t       addr_o
);
  error_status_t st_q, st_d, bits;
  error_info_t   info_q, info_d;
  word_t              addr_q, addr_d;

  always_comb begin
    bits          = '0;
    bits.any      = 1'b1;
    bits.dma      = err_code_i inside {ERROR_CODE_BD_INVALID, ERROR_CODE_BD_MISALIGNED,
                                       ERROR_CODE_ADDR_RANGE, ERROR_CODE_BD_CHAIN_LOOP,
                                       ERROR_CODE_PAD_ON_S2MM};
    bits.desc     = err_code_i inside {ERROR_CODE_DESC_MAGIC, ERROR_CODE_DESC_UNITS,
                                       ERROR_CODE_DESC_RANGE, ERROR_CODE_DPU_ILLEGAL,
                                       ERROR_CODE_STREAM_DTYPE, ERROR_CODE_BARRIER_MASK,
                                       ERROR_CODE_CMD_RANGE};
    bits.range    = err_code_i inside {ERROR_CODE_ADDR_RANGE, ERROR_CODE_L1_RANGE,
                                       ERROR_CODE_IMC_RANGE, ERROR_CODE_CMD_RANGE};
    bits.overflow = err_code_i inside {ERROR_CODE_QUEUE_OVERFLOW, ERROR_CODE_TOKEN_OVERFLOW};
    bits.watchdog = (err_code_i == ERROR_CODE_WATCHDOG);

    st_d   = st_q;
    info_d = info_q;
    addr_d = addr_q;
    if (clr_valid_i) st_d = error_status_t'(st_q & ~clr_mask_i);
    if (err_valid_i) begin
      if (st_d == '0) begin
        info_d         = '0;
        info_d.code    = err_code_i;
        info_d.dir     = err_dir_i;
        info_d.channel = err_channel_i;
        info_d.detail  = err_detail_i;
        addr_d         = err_addr_i;
      end
      st_d = st_d | bits;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= '0;
      info_q <= '0;
      addr_q <= '0;
    end else begin
      st_q   <= st_d;
      info_q <= info_d;
      addr_q <= addr_d;
    end
  end

  assign status_o = st_q;
  assign info_o   = info_q;
  assign addr_o   = addr_q;
endmodule
