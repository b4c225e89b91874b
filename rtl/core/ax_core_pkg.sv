// Core-tile internal constants: the L1 row ports in priority order (docs/timing.md: ODR > IFD0 >
// IFD1 > LoadIMC > DMA word port; inside a class the MVMEXE pipeline first) and small helpers.
// verilator lint_off UNUSEDPARAM
package ax_core_pkg;
  import axcore_pkg::*;
  import ax_rtl_pkg::*;

  localparam int unsigned L1P_MVM_ODR  = 0;
  localparam int unsigned L1P_DW_ODR   = 1;
  localparam int unsigned L1P_MVM_IFD0 = 2;
  localparam int unsigned L1P_DW_IFD0  = 3;
  localparam int unsigned L1P_MVM_IFD1 = 4;
  localparam int unsigned L1P_DW_IFD1  = 5;
  localparam int unsigned L1P_LOADIMC  = 6;
  localparam int unsigned L1P_DWPU_W   = 7;   // DWPU weight load
  localparam int unsigned L1P_UNITS    = 8;   // unit ports; the word port comes after them
  localparam int unsigned L1P_WORD     = 8;

  localparam int unsigned ROW_W = 48;         // signed row arithmetic of walks

  typedef logic signed [ROW_W-1:0] srow_t;

  // An error a unit reports (one cycle pulse), kept by the command processor for its task.
  typedef struct packed {
    logic        valid;
    error_code_e code;
    logic [31:0] addr;
  } unit_err_t;

  function automatic logic [2:0] rows_of(dtype_e d);
    return 3'(dtype_rows(d));
  endfunction
endpackage
// verilator lint_on UNUSEDPARAM
