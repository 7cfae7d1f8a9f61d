// Times are written in UTC in <time datetime="..."> elements; where the browser allows,
// show each in the reader's own time zone as well. The page reads the same without it.
document.querySelectorAll("time[datetime]").forEach(function (el) {
  var when = new Date(el.getAttribute("datetime"));
  if (isNaN(when.getTime())) { return; }
  var local = when.toLocaleString(undefined, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
    timeZoneName: "short"
  });
  el.setAttribute("title", el.textContent);
  el.textContent = local;
});
