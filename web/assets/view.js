(function(){
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
})();