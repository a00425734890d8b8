package web

// viewCSS is the style of view pages and of the server's pages.
const viewCSS = `
:root{--bg:#fbfbfa;--fg:#1d1f21;--mute:#6a6f76;--line:#e2e2df;--user:#e8f0fe;--asst:#ffffff;--sys:#f3f0e6;--tool:#f6f7f9;--bad:#b3261e;--good:#1e7b34;--mark:#fff3c4;--accent:#3b5bdb}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
header{padding:14px 20px;border-bottom:1px solid var(--line);background:#fff}
header nav{margin-bottom:6px}
h1{font-size:19px;margin:0 0 6px}
h2{font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:var(--mute);margin:14px 0 6px}
a{color:var(--accent)}
code,pre,.text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.meta span,.meta .tag{margin-right:12px;color:var(--mute)}
.tag{display:inline-block;padding:0 6px;border-radius:4px;background:#eef;color:#334;font-size:12px}
.source{color:var(--mute);margin-top:4px}
.cmd{margin-top:6px}.cmd code{background:#f1f1ee;padding:2px 6px;border-radius:4px}
button{font:inherit;font-size:12px;border:1px solid var(--line);background:#fff;border-radius:4px;padding:1px 8px;cursor:pointer}
main{display:flex;align-items:flex-start;gap:18px;padding:0 20px}
aside{flex:0 0 280px;max-height:calc(100vh - 20px);overflow:auto;position:sticky;top:0;padding-bottom:20px}
aside .body{font-size:12.5px}
aside .item{display:block;padding:2px 0;border-bottom:1px dotted var(--line);overflow-wrap:anywhere}
aside .empty{color:var(--mute)}
#conv{flex:1;min-width:0}
#bar{position:sticky;top:0;background:var(--bg);padding:10px 0;display:flex;gap:10px;align-items:center;z-index:2;border-bottom:1px solid var(--line)}
#filter{flex:1;max-width:420px;padding:5px 8px;border:1px solid #ccc;border-radius:5px;font:inherit}
#count{color:var(--mute)}
.msg{border:1px solid var(--line);border-radius:7px;margin:10px 0;padding:8px 12px;background:var(--asst)}
.msg.user{background:var(--user)}.msg.system{background:var(--sys)}
.msg.side{margin-left:18px}
.msg .head{font-size:12px;color:var(--mute);margin-bottom:4px;display:flex;gap:10px}
.msg .role{font-weight:600;color:var(--fg)}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.msg img{max-width:100%;max-height:480px;display:block;margin:6px 0;border:1px solid var(--line)}
details.tool{background:var(--tool);border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 8px}
details.tool>summary{cursor:pointer;font-size:12.5px}
details.tool .ok{color:var(--good)}details.tool .fail{color:var(--bad)}
details.tool h3{font-size:11px;color:var(--mute);margin:6px 0 2px;text-transform:uppercase}
details.tool pre{background:#fff;border:1px solid var(--line);padding:6px;max-height:520px;overflow:auto}
details.result>summary{cursor:pointer;color:var(--mute);font-size:12px}
details.agent{border-left:3px solid #a5b4fc;margin:10px 0;padding-left:8px}
details.agent>summary{cursor:pointer;color:#4338ca;font-weight:600}
.compaction{margin:16px 0;padding:8px 12px;border:2px dashed #d97706;border-radius:7px;background:#fff7ed}
.compaction .label{font-weight:700;color:#b45309}
.compaction details{margin-top:4px}
.showall{margin-top:4px}
.status-completed{color:var(--good)}.status-in_progress{color:var(--accent)}.status-pending{color:var(--mute)}
footer{color:var(--mute);font-size:12px;padding:20px}
table.list{border-collapse:collapse;width:100%;margin:8px 0}
table.list td,table.list th{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
.page{padding:0 20px 20px}
`

// viewJS renders the session JSON of a view page. It only ever puts
// transcript strings into the document as text (textContent) or as the src
// of an <img> whose URI Render checked to be a base64 image.
const viewJS = `(function(){
"use strict";
var D=JSON.parse(document.getElementById("ben10-data").textContent);
var CHUNK=200, LIMIT=3000, SIDE=100;
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
function longText(tag,cls,s){
  var e=el(tag,cls);s=s||"";
  if(s.length<=LIMIT){e.textContent=s;return e;}
  e.textContent=s.slice(0,LIMIT)+"\u2026";
  var w=el("div");w.appendChild(e);
  var b=el("button","showall","show all ("+s.length.toLocaleString()+" characters)");
  b.type="button";
  b.addEventListener("click",function(){e.textContent=s;b.remove();});
  w.appendChild(b);return w;
}
function when(ts){return ts?ts.replace("T"," ").replace("Z","Z"):"";}
document.querySelectorAll("button.copy").forEach(function(b){
  b.addEventListener("click",function(){var t=b.getAttribute("data-copy");
    if(navigator.clipboard){navigator.clipboard.writeText(t).then(function(){b.textContent="copied";});}});
});
function side(id,items,render){
  var body=document.querySelector("#"+id+" .body");
  if(!items.length){body.appendChild(el("div","empty","none"));return;}
  var shown=0;
  function more(){var end=Math.min(items.length,shown+SIDE),f=document.createDocumentFragment();
    for(;shown<end;shown++)f.appendChild(render(items[shown]));body.appendChild(f);
    if(shown<items.length){var b=el("button","showall","show "+(items.length-shown).toLocaleString()+" more");b.type="button";
      b.addEventListener("click",function(){b.remove();more();});body.appendChild(b);}}
  more();
}
side("tasks",D.tasks,function(t){
  var mark=t.s==="completed"?"\u2611 ":(t.s==="in_progress"?"\u25b6 ":"\u2610 ");
  return el("div","item status-"+t.s,mark+t.c);
});
side("files",D.files,function(f){
  var d=el("div","item");d.appendChild(el("code",null,f.p));
  var n=[];if(f.r)n.push(f.r+" read");if(f.e)n.push(f.e+" edit");if(f.w)n.push(f.w+" write");
  if(n.length)d.appendChild(el("span","empty"," \u00b7 "+n.join(", ")));return d;
});
side("commands",D.tools.filter(function(t){return t.cmd;}),function(t){
  var d=el("div","item");d.appendChild(el("span",t.ok?"status-completed":"fail",t.ok?"\u2713 ":"\u2717 "));
  d.appendChild(el("code",null,t.cmd.length>300?t.cmd.slice(0,300)+"\u2026":t.cmd));return d;
});
side("compactions",D.compactions,function(c){
  var a=el("a","item","#"+(D.compactions.indexOf(c)+1)+" "+(c.trigger||"")+" after message "+c.at+(c.pre?" ("+c.pre.toLocaleString()+" tokens)":""));
  a.href="#compaction-"+(D.compactions.indexOf(c)+1);return a;
});
var shownTool={};
function toolEl(i){
  var t=D.tools[i];var d=el("details","tool");d.setAttribute("data-tool",String(i));
  var s=el("summary");s.appendChild(el("span",t.ok?"ok":"fail",t.ok?"\u2713 ":"\u2717 "));
  s.appendChild(el("b",null,t.n||"tool"));
  var first=t.cmd||t.in||"";first=first.split("\n")[0];
  if(first.length>120)first=first.slice(0,120)+"\u2026";
  s.appendChild(document.createTextNode(" "+first));d.appendChild(s);
  d.addEventListener("toggle",function(){
    if(!d.open||d.getAttribute("data-filled"))return;d.setAttribute("data-filled","1");
    d.appendChild(el("h3",null,"input"));d.appendChild(longText("pre","text",t.in));
    d.appendChild(el("h3",null,"output"));d.appendChild(longText("pre","text",t.out));
  });
  return d;
}
function msgEl(i){
  var m=D.messages[i];
  var d=el("div","msg "+(m.r||"")+(m.sc?" side":""));d.id="m"+(i+1);d.setAttribute("data-index",String(i));
  var h=el("div","head");h.appendChild(el("span","role",m.r||"?"));
  if(m.k)h.appendChild(el("span","kind",m.k));
  if(m.ts)h.appendChild(el("time",null,when(m.ts)));
  h.appendChild(el("span","num","#"+(i+1)));d.appendChild(h);
  var tools=m.tl||[];var fresh=tools.filter(function(x){return !shownTool[x];});
  if(m.k==="tool_result"&&tools.length&&!fresh.length){
    if(m.t){var r=el("details","result");r.appendChild(el("summary",null,"tool result ("+m.t.length.toLocaleString()+" characters)"));
    r.appendChild(longText("pre","text",m.t));d.appendChild(r);}
    else{d.appendChild(el("div","empty","result of "+tools.map(function(x){return D.tools[x].n;}).join(", ")+": in the call above"));}
  }else if(m.t){d.appendChild(longText("div","text",m.t));}
  (m.img||[]).forEach(function(u){if(/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+\/=]+$/.test(u)){var im=el("img");im.alt="image";im.src=u;d.appendChild(im);}});
  fresh.forEach(function(x){shownTool[x]=true;d.appendChild(toolEl(x));});
  return d;
}
function compEl(j){
  var c=D.compactions[j];var d=el("div","compaction");d.id="compaction-"+(j+1);
  d.appendChild(el("span","label","\u2702 Compaction "+(j+1)+(c.trigger?" ("+c.trigger+")":"")));
  var info=[];if(c.pre)info.push(c.pre.toLocaleString()+" tokens before");if(c.post)info.push(c.post.toLocaleString()+" after");if(c.ts)info.push(when(c.ts));
  if(info.length)d.appendChild(el("span","empty"," \u00b7 "+info.join(" \u00b7 ")));
  if(c.summary){var s=el("details");s.appendChild(el("summary",null,"summary"));s.appendChild(longText("div","text",c.summary));d.appendChild(s);}
  return d;
}
function agentEl(g){
  var d=el("details","agent");d.open=true;
  d.appendChild(el("summary",null,"Sub-agent "+(g.a||"")+" \u00b7 "+g.idx.length+" messages"));
  g.idx.forEach(function(i){d.appendChild(msgEl(i));});return d;
}
function matches(i,q,roles){
  var m=D.messages[i];if(!roles[m.r||"system"]&&!(m.r!=="user"&&m.r!=="assistant"&&roles.system))return false;
  if(!q)return true;
  if((m.t||"").toLowerCase().indexOf(q)>=0)return true;
  var tl=m.tl||[];
  for(var k=0;k<tl.length;k++){var t=D.tools[tl[k]];
    if((t.n+"\n"+t.in+"\n"+t.out+"\n"+(t.cmd||"")).toLowerCase().indexOf(q)>=0)return true;}
  return false;
}
function buildItems(q,roles){
  var items=[],ci=0,n=D.messages.length,all=!q&&roles.user&&roles.assistant&&roles.system,cs=D.compactions;
  var order=cs.map(function(c,j){return j;}).sort(function(a,b){return cs[a].at-cs[b].at;});
  var g=null;
  for(var i=0;i<n;i++){
    while(ci<order.length&&cs[order[ci]].at<=i){if(all||(q&&(cs[order[ci]].summary||"").toLowerCase().indexOf(q)>=0)){g=null;items.push({c:order[ci]});}ci++;}
    if(!matches(i,q,roles))continue;
    var m=D.messages[i];
    if(m.sc&&m.a){
      if(g&&g.a===m.a){g.idx.push(i);continue;}
      g={g:true,a:m.a,idx:[i]};items.push(g);continue;
    }
    g=null;items.push({m:i});
  }
  for(;ci<order.length;ci++){if(all)items.push({c:order[ci]});}
  return items;
}
var box=document.getElementById("messages"),more=document.getElementById("more"),count=document.getElementById("count");
var items=[],pos=0,matched=0;
function renderMore(){
  var end=Math.min(items.length,pos+CHUNK),frag=document.createDocumentFragment();
  for(;pos<end;pos++){var it=items[pos];
    frag.appendChild(it.g?agentEl(it):(it.c!=null?compEl(it.c):msgEl(it.m)));}
  box.appendChild(frag);more.hidden=pos>=items.length;
  if(!more.hidden)more.textContent="Show more ("+(items.length-pos).toLocaleString()+" left)";
}
function apply(){
  var q=document.getElementById("filter").value.trim().toLowerCase(),roles={};
  document.querySelectorAll("input.role").forEach(function(c){roles[c.value]=c.checked;});
  items=buildItems(q,roles);pos=0;shownTool={};box.textContent="";
  matched=0;items.forEach(function(it){matched+=it.g?it.idx.length:(it.c!=null?0:1);});
  count.textContent=(q||matched!==D.messages.length)?matched.toLocaleString()+" of "+D.messages.length.toLocaleString()+" messages":D.messages.length.toLocaleString()+" messages";
  renderMore();
}
more.addEventListener("click",renderMore);
if("IntersectionObserver" in window){new IntersectionObserver(function(es){es.forEach(function(e){if(e.isIntersecting&&!more.hidden)renderMore();});}).observe(more);}
var timer=0;
document.getElementById("filter").addEventListener("input",function(){clearTimeout(timer);timer=setTimeout(apply,200);});
document.querySelectorAll("input.role").forEach(function(c){c.addEventListener("change",apply);});
apply();
})();`
