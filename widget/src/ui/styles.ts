/** The chat panel's styles, scoped by the Shadow DOM; `--c` is the account's colour, `--f` the text on it. */
export const PANEL_CSS = `
.l{background:var(--c)}.l .b{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;padding:0 5px;box-sizing:border-box;border-radius:10px;background:#e53935;color:#fff;font:700 12px/20px system-ui,sans-serif;text-align:center}
.p{position:fixed;right:20px;bottom:88px;z-index:2147483000;width:370px;height:min(600px,calc(100vh - 110px));display:flex;flex-direction:column;background:#fff;color:#1f2328;border-radius:14px;overflow:hidden;box-shadow:0 8px 32px rgba(0,0,0,.22);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;text-align:start}
.p[hidden]{display:none}
.h{display:flex;align-items:center;gap:10px;padding:14px 14px 14px 16px;background:var(--c);color:var(--f)}
.av{width:38px;height:38px;border-radius:50%;object-fit:cover;flex:none;background:rgba(255,255,255,.25);display:flex;align-items:center;justify-content:center;font-weight:700;font-size:17px}
.hn{flex:1;min-width:0}.hn b,.hn span{display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.hn span{font-size:12.5px}
.x,.ic{border:0;background:none;color:inherit;cursor:pointer;padding:6px;border-radius:8px;display:flex}.x svg,.ic svg{width:20px;height:20px;fill:currentColor}
.x:focus-visible,.ic:focus-visible,.o button:focus-visible,.r:focus-visible{outline:2px solid #1a73e8;outline-offset:1px}
.ls{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:6px;background:#f6f7f9}
.m{max-width:80%;display:flex;flex-direction:column;align-items:flex-start}.m.v{margin-inline-start:auto;align-items:flex-end}
.m .a{font-size:11.5px;color:#57606a;margin:0 4px 2px}
.bu{padding:8px 12px;border-radius:14px;background:#fff;border:1px solid #e3e6ea;white-space:pre-wrap;overflow-wrap:anywhere}
.v .bu{background:var(--c);color:var(--f);border-color:transparent}.v .bu a{color:inherit}
.bu img{display:block;max-width:100%;max-height:220px;border-radius:8px;margin:2px 0}
.tm{font-size:10.5px;color:#57606a;margin:2px 4px 0}.pe{opacity:.6}
.r{border:0;background:none;color:#c62828;font:inherit;font-size:12px;cursor:pointer;padding:2px 4px;text-decoration:underline}
.t{padding:0 16px 6px;font-size:12px;color:#57606a;background:#f6f7f9;min-height:18px}
.d{display:inline-flex;gap:3px;margin-inline-end:6px}.d i{width:6px;height:6px;border-radius:50%;background:#8b949e;animation:pd 1.2s infinite}.d i:nth-child(2){animation-delay:.2s}.d i:nth-child(3){animation-delay:.4s}
@keyframes pd{0%,60%,100%{opacity:.3}30%{opacity:1}}
.c{display:flex;align-items:flex-end;gap:4px;padding:8px;border-top:1px solid #e3e6ea;background:#fff}
.c textarea,.o input,.o textarea{flex:1;resize:none;border:1px solid #d0d7de;border-radius:10px;padding:8px 10px;font:inherit;color:inherit;background:#fff;max-height:120px;box-sizing:border-box}
.c textarea:focus,.o input:focus,.o textarea:focus{outline:2px solid var(--c);outline-offset:-1px}
.c .ic{color:#57606a}.c .s{color:var(--c)}[dir=rtl] .s svg{transform:scaleX(-1)}
.e{color:#c62828;font-size:12px;padding:0 12px}.e:empty{display:none}
.o{display:flex;flex-direction:column;gap:8px;padding:12px;border-top:1px solid #e3e6ea}.o p{margin:0}.o label{display:flex;flex-direction:column;gap:3px;font-size:12.5px;color:#57606a}
.o button{align-self:flex-end;border:0;border-radius:10px;padding:8px 18px;background:var(--c);color:var(--f);font:inherit;font-weight:600;cursor:pointer}
.f{display:block;text-align:center;font-size:11px;color:#57606a;padding:6px;text-decoration:none;background:#fff}.f:hover{text-decoration:underline}
@media (max-width:480px){.w:not(.pv) .p{inset:0;width:100%;height:100%;border-radius:0}.l[aria-expanded=true]:not(.pvl){display:none}}
@media (prefers-reduced-motion:reduce){.d i{animation:none}.l{transition:none}}
`;

/** The console's onboarding preview only (renderPreview passes it; the visitor's UI chunk leaves it out). */
export const PREVIEW_CSS =
  '.pv{height:100%}.pv .p{position:relative;right:auto;bottom:auto;z-index:auto;width:100%;height:100%;box-sizing:border-box}.pv .c button{cursor:default}' +
  '.st:before{content:"";display:inline-block;width:7px;height:7px;border-radius:50%;background:#3fb950;margin-inline-end:5px;vertical-align:1px}';
