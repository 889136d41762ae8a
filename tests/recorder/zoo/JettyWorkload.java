// Drives the Jetty web server (libjetty9-java) on loopback: a servlet that renders a page of
// generated rows, and a client that sends it GET and POST requests. Jetty is a real program no
// one here wrote; this driver is only its workload.
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

public class JettyWorkload {
    public static class Page extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            int n = Integer.parseInt(req.getParameter("rows"));
            StringBuilder b = new StringBuilder("<html><body><table>");
            for (int i = 0; i < n; i++)
                b.append("<tr><td>").append(i).append("</td><td>").append(req.getPathInfo()).append("</td></tr>");
            resp.setContentType("text/html");
            resp.getWriter().write(b.append("</table></body></html>").toString());
        }

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            byte[] body = req.getInputStream().readAllBytes();
            resp.setContentType("text/plain");
            resp.getWriter().write("got " + body.length);
        }
    }

    public static void main(String[] args) throws Exception {
        int requests = Integer.parseInt(args[0]);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new Page()), "/page/*");
        server.setHandler(context);
        server.start();
        long bytes = 0;
        for (int i = 0; i < requests; i++) {
            URL url = new URL("http://127.0.0.1:" + connector.getLocalPort() + "/page/p" + (i % 17) + "?rows=" + (10 + i % 50));
            HttpURLConnection con = (HttpURLConnection) url.openConnection();
            if (i % 5 == 4) {
                con.setRequestMethod("POST");
                con.setDoOutput(true);
                try (OutputStream o = con.getOutputStream()) {
                    o.write(("request " + i).repeat(20).getBytes(StandardCharsets.UTF_8));
                }
            }
            try (InputStream in = con.getInputStream()) {
                bytes += in.readAllBytes().length;
            }
            if (i % 100 == 99) Zoo.checkpoint("requests" + (i + 1));
        }
        server.stop();
        System.out.println("served " + requests + " requests, " + bytes + " bytes");
    }
}
