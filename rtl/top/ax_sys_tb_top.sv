// Test top without core tiles: host interface, shim (SysDMA, tokens), mem tile (L2, MemDMA),
// the word fabric and the DDR master — the system part of axcore_top, for the DMA and
// register tests of tests/rtl. Not a device configuration (the spec needs cores >= 1).
module ax_sys_tb_top
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
(
`include "ax_top_ports.svh"
  ,
  output logic        busy_o,
  output logic [63:0] cycle_o
);
  // The core side stays open in this top (its outputs unconnected).
  // verilator lint_off PINCONNECTEMPTY
  ax_uncore #(.Cores(0)) u_uncore (
`include "ax_top_conn.svh"
    .busy_o            (busy_o),
    .cycle_o           (cycle_o),
    .soft_reset_o      (),
    .c_reg_valid_o     (),
    .c_reg_req_o       (),
    .c_reg_rsp_valid_i ('0),
    .c_reg_rsp_hit_i   ('0),
    .c_reg_rsp_rdata_i ('0),
    .c_l1_req_valid_o  (),
    .c_l1_req_o        (),
    .c_l1_req_id_o     (),
    .c_l1_req_ready_i  ('0),
    .c_l1_rsp_valid_i  ('0),
    .c_l1_rsp_data_i   ('0),
    .c_dma_req_valid_i ('0),
    .c_dma_req_i       ('0),
    .c_dma_req_ready_o (),
    .c_dma_rsp_valid_o (),
    .c_dma_rsp_data_o  (),
    .c_tok_valid_i     ('0),
    .c_tok_ready_o     (),
    .c_tok_i           ('0),
    .c_busy_i          ('0),
    .c_err_i           ('0)
  );
  // verilator lint_on PINCONNECTEMPTY
endmodule
