export default function WidgetSettings() {
  return <h1>WidgetSettings</h1>;
}
